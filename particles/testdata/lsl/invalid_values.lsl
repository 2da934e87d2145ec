// Creator mistakes: bad blend, wrong types, unused rule code, out-of-range values.
default
{
    state_entry()
    {
        llParticleSystem([
            PSYS_PART_BLEND_FUNC_SOURCE, 6,          // GL_DST_ALPHA: not for scripts
            PSYS_PART_BLEND_FUNC_DEST, PSYS_PART_BF_ZERO,
            PSYS_PART_START_COLOR, 1.0,              // wrong type: a float, not a vector
            PSYS_SRC_PATTERN, 4.7,                   // float for an integer rule: truncated
            PSYS_PART_MAX_AGE, 7,                    // integer for a float rule
            PSYS_PART_END_COLOR, <2.0, -1.0, 0.5>,
            14, 1.0,                                 // unused rule code
            PSYS_PART_END_GLOW, 1.5,
            PSYS_SRC_TARGET_KEY, NULL_KEY,
            PSYS_SRC_TEXTURE, "5E120BA1-5805-DC57-66B7-F5AC4BD18F86"
        ]);
    }
}
