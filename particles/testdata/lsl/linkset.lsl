// Linkset sparkle controller: root script drives the child prims.
integer CHIMNEY = 3;
key SPARK = "5e120ba1-5805-dc57-66b7-f5ac4bd18f86";

default
{
    state_entry()
    {
        llLinkParticleSystem(LINK_SET, []);
        llLinkParticleSystem(CHIMNEY, [PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE,
            PSYS_SRC_TEXTURE, SPARK,
            PSYS_PART_FLAGS, PSYS_PART_EMISSIVE_MASK | PSYS_PART_FOLLOW_VELOCITY_MASK,
            PSYS_SRC_BURST_PART_COUNT, 0x0A]);
    }

    touch_start(integer total)
    {
        llLinkParticleSystem(LINK_THIS, [PSYS_PART_BLEND_FUNC_SOURCE, PSYS_PART_BF_ONE,
                                         PSYS_PART_BLEND_FUNC_DEST, PSYS_PART_BF_ONE_MINUS_SOURCE_ALPHA,
                                         PSYS_PART_START_GLOW, 0.2]);
        llLinkParticleSystem(2 + 2, [PSYS_PART_MAX_AGE, 3]);
        llLinkParticleSystem(llDetectedLinkNumber(0), [PSYS_PART_MAX_AGE, 1.0]);
    }
}
