default {
    state_entry() {
        llParticleSystem([
            PSYS_PART_START_COLOR, <(float)"nan", 2.0, -1.0>, PSYS_PART_START_ALPHA, 1e30,
            PSYS_PART_START_SCALE, <-5.0, 99.0, 0.0>, PSYS_PART_MAX_AGE, -1.0,
            PSYS_SRC_BURST_RATE, (float)"inf", PSYS_SRC_BURST_PART_COUNT, 300,
            PSYS_SRC_PATTERN, 99, PSYS_PART_BLEND_FUNC_SOURCE, 6,
            PSYS_SRC_INNERANGLE, 100.0, PSYS_SRC_OUTERANGLE, -3.0, 12345, 1.0, PSYS_SRC_ACCEL
        ]);
    }
}
