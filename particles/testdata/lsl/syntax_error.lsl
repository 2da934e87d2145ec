// Broken: the list is closed with ) instead of ].
default
{
    state_entry()
    {
        llParticleSystem([PSYS_PART_MAX_AGE, 2.0);
    }
}
