// Values converted to the type of the variable they are stored in: a float declared or assigned
// with an integer divides as a float, and a user function called with constant arguments sees them
// converted to its parameters' types.

float gLife = 3;          // an integer literal in a float: 3.0
integer gCount = 4;

MakeSmoke(float size, float rate, string tex, integer glow)
{
    float half = size / 2;                 // size is 3.0 (passed 3), so 1.5
    integer flags = PSYS_PART_INTERP_SCALE_MASK;
    if (glow) flags = flags | PSYS_PART_EMISSIVE_MASK;
    llParticleSystem([
        PSYS_PART_FLAGS, flags,
        PSYS_PART_START_SCALE, <half, half, 0>,
        PSYS_PART_END_SCALE, <size, size, 0>,
        PSYS_SRC_BURST_RATE, rate / 4,     // 1 / 4 as floats: 0.25
        PSYS_PART_MAX_AGE, gLife / 2,      // 1.5
        PSYS_SRC_BURST_PART_COUNT, gCount / 3,  // integers: 1
        PSYS_SRC_TEXTURE, tex
    ]);
}

default
{
    state_entry()
    {
        MakeSmoke(3, 1, "smoke_puff", FALSE);
    }

    touch_start(integer n)
    {
        gLife = 5;                         // assigned an integer: 5.0
        MakeSmoke(llFrand(2.0) + 1.0, 1, "smoke_puff", TRUE);
    }
}
