// Sparkler written for the Firestorm preprocessor (macros, conditionals, an include the importer
// does not have). Written for the importer's tests, shaped after common creator scripts.
#define TRACERGRID
#include "LIB\lib.lsl"
#define STARTALPHA 1.0
#ifdef TRACERGRID
    #define RATE 0.05
#else
    #define RATE 0.5
#endif
#ifndef COLOR1
#define COLOR1 <1.0, 0.8, \
                0.2>
#endif
#if defined SECONDLIFE
#define GLOW 0.0
#elif defined(TRACERGRID) && !defined NOGLOW
#define GLOW 0.2
#endif
#define FLAGS PSYS_PART_EMISSIVE_MASK | PSYS_PART_INTERP_SCALE_MASK
#define SAY(x) llOwnerSay(x)
vector color = COLOR_WHITE;

makeParticles()
{
    llParticleSystem([
        PSYS_PART_FLAGS, FLAGS,
        PSYS_SRC_BURST_RATE, RATE,
        PSYS_PART_START_ALPHA, STARTALPHA,
        PSYS_PART_START_COLOR, COLOR1,
        PSYS_PART_END_COLOR, color,
        PSYS_PART_START_GLOW, GLOW
    ]);
}

default
{
    state_entry()
    {
        SAY("lit");
        makeParticles();
#undef RATE
#define RATE 2.0
        llParticleSystem([PSYS_SRC_BURST_RATE, RATE]);
    }
}
