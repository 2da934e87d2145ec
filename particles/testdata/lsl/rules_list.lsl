// Shared rule lists, joined per event.
list BASE = [
    PSYS_PART_FLAGS, PSYS_PART_INTERP_COLOR_MASK,
    PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_DROP,
    PSYS_PART_MAX_AGE, 2.0
];
list GLOW = [PSYS_PART_START_GLOW, 0.5, PSYS_PART_END_GLOW, 0.1];

default
{
    state_entry()
    {
        list rules = BASE + GLOW;
        llParticleSystem(rules);
    }

    touch_start(integer n)
    {
        llParticleSystem(BASE + [PSYS_PART_MAX_AGE, 4.0]);   // duplicate overrides the base
    }

    on_rez(integer param)
    {
        list extra;
        extra += [PSYS_SRC_BURST_PART_COUNT, 20];
        extra += [PSYS_SRC_BURST_RATE, 0.25];
        llParticleSystem(BASE + extra + llGetPrimitiveParams([PRIM_SIZE]) + [PSYS_PART_START_ALPHA, 0.5]);
    }
}
