// Rule lists built and returned by user functions: a call's value is what the function returns,
// its arguments converted to the parameters' types.

string gTexture = "smoke_puff";
integer gPuffs = 0;

vector Grey(float level)
{
    return <level, level, level>;
}

list Smoke(float size, integer count)
{
    list rules = [
        PSYS_PART_FLAGS, PSYS_PART_INTERP_SCALE_MASK | PSYS_PART_INTERP_COLOR_MASK,
        PSYS_PART_START_SCALE, <size / 2, size / 2, 0>,
        PSYS_PART_END_SCALE, <size, size, 0>,
        PSYS_PART_START_COLOR, Grey(0.5),
        PSYS_SRC_BURST_PART_COUNT, count,
        PSYS_SRC_TEXTURE, gTexture
    ];
    if (size > 3.0) rules += [PSYS_PART_MAX_AGE, 20.0];
    else rules += [PSYS_PART_MAX_AGE, 8.0];
    return rules;
}

list Steam(float rate)
{
    if (rate <= 0.0) return [];
    return Smoke(2, 3) + [PSYS_SRC_BURST_RATE, rate];
}

integer NextPuffs()
{
    gPuffs += 2;
    return gPuffs;
}

default
{
    state_entry()
    {
        llParticleSystem(Smoke(4, 5));
    }

    touch_start(integer n)
    {
        list steam = Steam(0.25);
        llParticleSystem(steam);
    }

    timer()
    {
        llParticleSystem(Steam(llFrand(1.0)));
        llParticleSystem(Smoke(1, NextPuffs()));
    }
}
