// Values assigned inside a branch on a run-time condition: the branch runs as a whole, so a
// particle call inside it sees what it assigned; after the branch a value is kept only where
// every way through that goes on leaves it the same.

float gAge = 4.0;
float gSize = 1.0;
vector gColor = <1.0, 1.0, 1.0>;
string gTexture = "puff";

Emit()
{
    llParticleSystem([
        PSYS_PART_MAX_AGE, gAge,
        PSYS_PART_START_SCALE, <gSize, gSize, 0.0>,
        PSYS_PART_START_COLOR, gColor,
        PSYS_SRC_TEXTURE, gTexture
    ]);
}

Steam(float size)
{
    gAge = 12.0;
    gSize = size;
    Emit();
}

default
{
    touch_start(integer n)
    {
        float age = 4.0;
        vector color = <1.0, 1.0, 1.0>;
        if (llDetectedKey(0) == llGetOwner())
        {
            Steam(3);
            age = 12.0;
        }
        else
        {
            age = 12.0;
            color = <0.5, 0.5, 0.5>;
        }
        llParticleSystem([PSYS_PART_MAX_AGE, age, PSYS_PART_START_COLOR, color]);
    }

    listen(integer channel, string name, key id, string message)
    {
        string texture = "puff";
        if (message == "off")
        {
            texture = "";
            llParticleSystem([]);
            return;
        }
        llParticleSystem([PSYS_SRC_TEXTURE, texture, PSYS_PART_MAX_AGE, 2.0]);
    }

    timer()
    {
        integer i;
        for (i = 0; i < llGetNumberOfPrims(); ++i)
        {
            float size = 0.5;
            size = size * 4;
            llLinkParticleSystem(i, [PSYS_PART_START_SCALE, <size, size, 0.0>, PSYS_PART_MAX_AGE, 3.0]);
            gSize = 7.0;
        }
        llParticleSystem([PSYS_PART_START_SCALE, <gSize, gSize, 0.0>, PSYS_PART_MAX_AGE, 3.0]);
    }
}
