// Damage smoke: the rule list lives in a global that a helper fills in; the handlers only switch
// it on and off. Written for the importer's tests, shaped after common creator scripts.
list Particles;
string Texture = "smoke_puff";
float MaxSpeed;
float Rate = 1.0;
integer DEBUG = FALSE;
integer gLit;
list SparkList = [PSYS_PART_MAX_AGE, 2.0];

SetParticles()
{
    MaxSpeed = 0.4;
    Particles = [
        PSYS_PART_FLAGS, PSYS_PART_INTERP_COLOR_MASK | PSYS_PART_INTERP_SCALE_MASK,
        PSYS_PART_START_COLOR, <0.3, 0.3, 0.3>,
        PSYS_PART_START_ALPHA, 0.8,
        PSYS_PART_END_ALPHA, 0.0,
        PSYS_PART_START_SCALE, <0.5, 0.5, 0.0>,
        PSYS_PART_END_SCALE, <2.5, 2.5, 0.0>,
        PSYS_PART_MAX_AGE, 6.0,
        PSYS_SRC_BURST_RATE, Rate,
        PSYS_SRC_BURST_SPEED_MAX, MaxSpeed,
        PSYS_SRC_TEXTURE, Texture
    ];
    if (DEBUG)
    {
        Particles += [PSYS_PART_START_COLOR, <1.0, 0.0, 0.0>];
    }
    else
    {
        Particles += [PSYS_SRC_ACCEL, <0.0, 0.0, 0.2>];
    }
}

Faster()
{
    Rate = Rate / 4;
}

Sparks()
{
    if (gLit) return;
    SparkList = [PSYS_PART_MAX_AGE, 1.0];
}

default
{
    state_entry()
    {
        SetParticles();
        llParticleSystem([]);
        Faster();
        SetParticles();
        llParticleSystem(Particles);
    }

    link_message(integer sender, integer num, string str, key id)
    {
        if (num == 42)
        {
            if (str == "1")
                llParticleSystem(Particles);
            else
                llParticleSystem([]);
            gLit = str == "1";
        }
    }
}

state burning
{
    state_entry()
    {
        Sparks();
        llParticleSystem(SparkList);
    }
}
