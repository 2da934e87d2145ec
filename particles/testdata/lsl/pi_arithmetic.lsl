// Cone of fire with the angles worked out in degrees.
float HALF_CONE = 30.0 * DEG_TO_RAD;
float SPIN = TWO_PI / 4;
integer COUNT = (integer)7.9;

default
{
    state_entry()
    {
        llParticleSystem([
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE,
            PSYS_SRC_ANGLE_BEGIN, PI_BY_TWO - HALF_CONE,
            PSYS_SRC_ANGLE_END, (PI / 2.0) + HALF_CONE,
            PSYS_SRC_OMEGA, <0, 0, SPIN>,
            PSYS_SRC_BURST_PART_COUNT, COUNT,
            PSYS_PART_MAX_AGE, (float)3,
            PSYS_SRC_BURST_RATE, 1e-1,
            PSYS_SRC_BURST_SPEED_MIN, 2 * 0.25 + 1,
            PSYS_SRC_BURST_SPEED_MAX, -(-3.0),
            PSYS_PART_START_SCALE, <45.0 * DEG_TO_RAD, 0.5, 0>,
            PSYS_SRC_ACCEL, <0, 0, -1> * 0.5,
            PSYS_PART_START_COLOR, <255, 128, 0> / 255.0,
            PSYS_PART_END_ALPHA, 90 * RAD_TO_DEG / 8100
        ]);
    }
}
