integer COUNT = 6;
float RATE = 0.05;
vector COLOUR = <0.9, 0.9, 1.0>;
list BASE = [PSYS_PART_MAX_AGE, 2.0, PSYS_SRC_BURST_RATE, 0.05];

smoke(float age) {
    llParticleSystem(BASE + [PSYS_SRC_BURST_PART_COUNT, COUNT, PSYS_PART_START_COLOR, COLOUR,
        PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_ANGLE_CONE, PSYS_SRC_ANGLE_BEGIN, 0.0,
        PSYS_SRC_ANGLE_END, PI / 8, PSYS_SRC_OMEGA, <0.0, 0.0, 1.5>, PSYS_PART_MAX_AGE, age]);
}

default {
    state_entry() {
        COUNT = COUNT * 2;
        smoke(4.0);
    }
    touch_start(integer n) {
        llParticleSystem([]);
        state off;
    }
}

state off {
    state_entry() {
        llLinkParticleSystem(LINK_SET, [PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_DROP,
            PSYS_PART_BLEND_FUNC_SOURCE, PSYS_PART_BF_ONE, PSYS_PART_BLEND_FUNC_DEST, PSYS_PART_BF_ONE]);
    }
}
