// One compare-exchange step (j, k) of Batcher's bitonic sorting network ("Sorting networks and
// their applications", 1968), shared by particles.sort and particles.ribbons: thread t of the
// padded/2 threads pairs element i = 2j floor(t / j) + t mod j with i + j, and the pair is put in
// ascending order where i & k == 0, descending elsewhere. The steps (j, k) come from the CPU
// (render::passes::particle_sort::bitonic_steps).
#ifndef BITONIC_GLSL
#define BITONIC_GLSL

// The pair (i, i + j) thread t compares.
uvec2 bitonic_pair(uint t, uint j) {
    uint i = 2u * j * (t / j) + t % j;
    return uvec2(i, i + j);
}

// True when the pair starting at i belongs in ascending order in block size k.
bool bitonic_ascending(uint i, uint k) {
    return (i & k) == 0u;
}
#endif
