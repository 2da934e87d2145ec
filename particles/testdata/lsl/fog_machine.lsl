// Fog machine v2 -- ground-hugging mist
// Drop in a prim near the floor. Touch to say hello.
integer FLAGS = PSYS_PART_INTERP_COLOR_MASK | PSYS_PART_INTERP_SCALE_MASK | PSYS_PART_WIND_MASK;
float   gAge = 12.0;
vector  gStartCol = <0.85, 0.85, 0.9>;
float   RATE = .5;
string  TEX = "fog_soft";

default
{
    state_entry()
    {
        llParticleSystem([
            PSYS_PART_FLAGS, FLAGS,
            PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE,
            PSYS_PART_START_COLOR, gStartCol,
            PSYS_PART_END_COLOR, <1,1,1>,
            PSYS_PART_START_ALPHA, 0.4,
            PSYS_PART_END_ALPHA, 0.0,
            PSYS_PART_START_SCALE, <2.0, 2.0, 0>,
            PSYS_PART_END_SCALE, <4.0, 4.0, 0>,
            PSYS_PART_MAX_AGE, gAge,
            PSYS_SRC_BURST_RATE, RATE,
            PSYS_SRC_BURST_PART_COUNT, 5,
            PSYS_SRC_BURST_RADIUS, 1.5,
            PSYS_SRC_BURST_SPEED_MIN, 0.05,
            PSYS_SRC_BURST_SPEED_MAX, 0.2,
            PSYS_SRC_ACCEL, <0.0, 0.0, -0.02>,
            PSYS_SRC_TEXTURE, TEX
        ]);
    }

    touch_start(integer n)
    {
        llOwnerSay("Fog is on. // not a comment, and llParticleSystem([]) here is text");
    }
}
