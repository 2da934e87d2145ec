// Toggle fountain with states, a helper function and loops.
integer gOn = FALSE;
vector COLOR = <0.2, 0.6, 1.0>;

integer clampi(integer v, integer lo, integer hi)
{
    if (v < lo) return lo;
    if (v > hi) return hi;
    return v;
}

default
{
    state_entry()
    {
        integer i;
        for (i = 0; i < 3; i++)
        {
            llSetLinkAlpha(i, 0.0, ALL_SIDES);
        }
        state running;
    }
}

state running
{
    state_entry()
    {
        float age = 6.0;
        vector scale = <0.25, 0.25, 0.0>;
        string msg = "llParticleSystem([]) in a string is not a call";
        llParticleSystem([PSYS_PART_MAX_AGE, age, PSYS_PART_START_SCALE, scale,
                          PSYS_PART_START_COLOR, COLOR, PSYS_SRC_BURST_PART_COUNT, clampi(50, 1, 10)]);
    }

    touch_start(integer n)
    {
        float speed = 1.0;
        if (gOn)
        {
            llParticleSystem([]);
        }
        else
        {
            /* a block comment with llParticleSystem([PSYS_PART_MAX_AGE, 1.0]); inside */
            speed = 2.0;
            llParticleSystem([PSYS_PART_FLAGS, PSYS_PART_FOLLOW_SRC_MASK, PSYS_SRC_BURST_SPEED_MAX, speed]);
        }
        gOn = !gOn;
    }
}
