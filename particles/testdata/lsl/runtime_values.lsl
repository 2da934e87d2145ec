// Random sparkles: values picked while the script runs.
float gRate = 0.2;
key owner;

burst(float size, integer n)
{
    llParticleSystem([
        PSYS_PART_START_SCALE, <size, size, 0>,
        PSYS_SRC_BURST_PART_COUNT, n,
        PSYS_SRC_BURST_RATE, gRate,
        PSYS_SRC_PATTERN, PSYS_SRC_PATTERN_EXPLODE
    ]);
}

default
{
    state_entry()
    {
        owner = llGetOwner();
        llParticleSystem([
            PSYS_PART_FLAGS, PSYS_PART_TARGET_POS_MASK,
            PSYS_SRC_TARGET_KEY, llGetKey(),
            PSYS_SRC_BURST_RATE, llFrand(0.5) + 0.1,
            PSYS_PART_MAX_AGE, 5.0,
            PSYS_SRC_TEXTURE, llGetInventoryName(INVENTORY_TEXTURE, 0)
        ]);
    }

    touch_start(integer n)
    {
        float r = llFrand(1.0);
        llParticleSystem([PSYS_PART_START_ALPHA, r, PSYS_SRC_TARGET_KEY, owner, PSYS_PART_END_ALPHA, 0.5]);
        burst(r * 2.0, (integer)(r * 20));
    }

    dataserver(key id, string data)
    {
        llParticleSystem(llParseString2List(data, [","], []));
    }
}
