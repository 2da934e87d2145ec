// Campfire: flames (root), smoke (link 2), sparks (link 3)
float FIRE_AGE = 1.2;

fire()
{
    llLinkParticleSystem(LINK_ROOT, [
        PSYS_PART_FLAGS, PSYS_PART_EMISSIVE_MASK | PSYS_PART_INTERP_COLOR_MASK | PSYS_PART_INTERP_SCALE_MASK,
        PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE,
        PSYS_SRC_ANGLE_BEGIN, 0.0, PSYS_SRC_ANGLE_END, 0.3,
        PSYS_PART_START_COLOR, <1.0, 0.8, 0.2>, PSYS_PART_END_COLOR, <1.0, 0.1, 0.0>,
        PSYS_PART_START_SCALE, <0.4, 0.6, 0.0>, PSYS_PART_END_SCALE, <0.1, 0.1, 0.0>,
        PSYS_PART_MAX_AGE, FIRE_AGE,
        PSYS_SRC_BURST_RATE, 0.05, PSYS_SRC_BURST_PART_COUNT, 4,
        PSYS_SRC_BURST_SPEED_MIN, 0.3, PSYS_SRC_BURST_SPEED_MAX, 0.6,
        PSYS_SRC_ACCEL, <0, 0, 0.8>,
        PSYS_PART_BLEND_FUNC_SOURCE, PSYS_PART_BF_SOURCE_ALPHA,
        PSYS_PART_BLEND_FUNC_DEST, PSYS_PART_BF_ONE
    ]);
}

smoke()
{
    llLinkParticleSystem(2, [ PSYS_PART_FLAGS, PSYS_PART_INTERP_COLOR_MASK | PSYS_PART_INTERP_SCALE_MASK | PSYS_PART_WIND_MASK,
        PSYS_PART_START_COLOR, <0.3, 0.3, 0.3>, PSYS_PART_START_ALPHA, 0.6,
        PSYS_PART_END_COLOR, <0.5, 0.5, 0.5>, PSYS_PART_END_ALPHA, 0.0,
        PSYS_PART_START_SCALE, <0.5, 0.5, 0>, PSYS_PART_END_SCALE, <3.0, 3.0, 0>,
        PSYS_PART_MAX_AGE, 8.0, PSYS_SRC_ACCEL, <0.0, 0.0, 0.25>,
        PSYS_SRC_BURST_RATE, 0.3, PSYS_SRC_BURST_PART_COUNT, 2 ]);
}

sparks()
{
    llLinkParticleSystem(3, [PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,
        PSYS_PART_FLAGS, PSYS_PART_EMISSIVE_MASK | PSYS_PART_BOUNCE_MASK,
        PSYS_PART_START_COLOR, <1, 0.6, 0.1>,
        PSYS_PART_START_SCALE, <0.05, 0.05, 0>,
        PSYS_PART_MAX_AGE, 2.5, PSYS_SRC_BURST_RATE, 1.0,
        PSYS_SRC_BURST_PART_COUNT, 6, PSYS_SRC_BURST_SPEED_MIN, 1.5, PSYS_SRC_BURST_SPEED_MAX, 3.0,
        PSYS_SRC_ACCEL, <0, 0, -9.8>, PSYS_PART_END_GLOW, 0.0, PSYS_PART_START_GLOW, 0.3]);
}

default
{
    state_entry() { fire(); smoke(); sparks(); }
    touch_start(integer n) { state off; }
}

state off
{
    state_entry()
    {
        llLinkParticleSystem(LINK_SET, []);
    }
    touch_start(integer n) { state default; }
}
