// Ring emitter: ANGLE_CONE with ANGLE_BEGIN/END.
default
{
    state_entry()
    {
        llParticleSystem([
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE,
            PSYS_SRC_ANGLE_BEGIN, 1.0,
            PSYS_SRC_ANGLE_END, 1.2,
            PSYS_SRC_OMEGA, <0.0, 0.0, 1.5>,
            PSYS_SRC_BURST_RADIUS, 75.0,
            PSYS_SRC_MAX_AGE, 5
        ]);
    }

    touch_start(integer n)
    {
        // mixing styles: the last angle rule decides the flag
        llParticleSystem([PSYS_SRC_ANGLE_BEGIN, 0.2, PSYS_SRC_OUTERANGLE, 0.7]);
    }
}
