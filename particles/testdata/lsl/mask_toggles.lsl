// A settings-at-the-top particle template: each flag has its own TRUE/FALSE toggle, the target is
// a name ("" none, "owner", "self") turned into a key, colour interpolation is on when the two
// colours differ, and the flags are built up by branches on those globals before the call.

integer emissive = TRUE;      // particles glow
integer interp_size = TRUE;   // start size to end size
integer use_wind = FALSE;     // wind pushes them
integer turn_to_motion = FALSE;
key target = "";              // "" no target, "owner" or "self"

vector colour_a = <0.8, 0.8, 0.8>;
vector colour_b = <0.6, 0.6, 0.6>;
float age = 8.0;

integer flags;

start()
{
    if (target == "owner") target = llGetOwner();
    if (target == "self") target = llGetKey();
    if (emissive) flags = flags | PSYS_PART_EMISSIVE_MASK;
    if (colour_a != colour_b) flags = flags | PSYS_PART_INTERP_COLOR_MASK;
    if (interp_size) flags = flags | PSYS_PART_INTERP_SCALE_MASK;
    if (use_wind) flags = flags | PSYS_PART_WIND_MASK;
    if (turn_to_motion) flags = flags | PSYS_PART_FOLLOW_VELOCITY_MASK;
    if (target != "") flags = flags | PSYS_PART_TARGET_POS_MASK;
    llParticleSystem([PSYS_PART_FLAGS, flags,
                      PSYS_PART_START_COLOR, colour_a, PSYS_PART_END_COLOR, colour_b,
                      PSYS_PART_MAX_AGE, age,
                      PSYS_SRC_TARGET_KEY, target]);
}

default
{
    state_entry()
    {
        start();
    }

    touch_start(integer n)
    {
        // Follow the owner: the key is only known at run time, but it is never empty.
        target = "owner";
        flags = 0;
        start();
    }
}
