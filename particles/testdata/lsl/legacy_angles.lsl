// Old-style fountain (2005) using INNERANGLE/OUTERANGLE.
// Values pushed past the limits on purpose: "count 1 to 4096", "scale up to 10,10".
float inner = 0.1;
float outer = 0.5;

default
{
    state_entry()
    {
        llParticleSystem([PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE,
                          PSYS_SRC_INNERANGLE, inner, PSYS_SRC_OUTERANGLE, outer,
                          PSYS_SRC_BURST_SPEED_MIN, -2.0, PSYS_SRC_BURST_SPEED_MAX, 150.0,
                          PSYS_PART_START_SCALE, <5.0, 0.02, 0.0>,
                          PSYS_PART_MAX_AGE, 45.0,
                          PSYS_SRC_BURST_PART_COUNT, 300,
                          PSYS_SRC_ACCEL, <0, 0, -150.0>]);
    }
}
