#define FOG 1
#define SIZE <3.0, 3.0, 0.0>
#ifdef FOG
string TEX = "fog";
#else
string TEX = "spark";
#endif

default {
    state_entry() {
        float glow = (float)"0.25";
        integer n = (integer)"12";
        vector v = (vector)"<0.1, 0.2, 0.3>";
        if (FOG) {
            llParticleSystem([PSYS_PART_START_SCALE, SIZE, PSYS_SRC_TEXTURE, TEX,
                PSYS_SRC_BURST_PART_COUNT, n, PSYS_PART_START_GLOW, glow,
                PSYS_SRC_ACCEL, v * 2, PSYS_SRC_MAX_AGE, 0.0, PSYS_SRC_BURST_RADIUS, 1.5,
                PSYS_SRC_TARGET_KEY, llGetKey(), PSYS_PART_FLAGS, PSYS_PART_TARGET_POS_MASK]);
        }
    }
}
