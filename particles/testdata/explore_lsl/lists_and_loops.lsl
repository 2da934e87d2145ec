list rules;
integer i;

add(integer code, float value) {
    rules += [code, value];
}

default {
    state_entry() {
        rules = [];
        add(PSYS_PART_MAX_AGE, 1.0);
        add(PSYS_SRC_BURST_RATE, 0.2);
        for (i = 0; i < 3; ++i) {
            add(PSYS_SRC_BURST_SPEED_MAX, llFrand(2.0));
        }
        rules = llListReplaceList(rules, [PSYS_PART_END_ALPHA, 0.5], 0, 1);
        while (i > 0) { --i; }
        llParticleSystem(rules + [PSYS_PART_FLAGS, PSYS_PART_RIBBON_MASK | PSYS_PART_FOLLOW_SRC_MASK]);
    }
}
