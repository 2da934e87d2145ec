// Low-lag puff: set once, switch off from a timer.
list NONE = [];

default
{
    state_entry()
    {
        llParticleSystem([PSYS_PART_FLAGS, 0, PSYS_SRC_PATTERN, 1, PSYS_SRC_BURST_PART_COUNT, 3]);
        llSetTimerEvent(30.0);
    }

    timer()
    {
        llParticleSystem([]);
        llSetTimerEvent(0.0);
    }

    changed(integer change)
    {
        llParticleSystem(NONE);
    }
}
