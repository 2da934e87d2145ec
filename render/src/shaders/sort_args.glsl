// The args words of the merge sort (merge_sort.glsl), written by particle_sort/args.comp from the
// count on the GPU and read by the sort's indirect dispatches: the count, the blocks' dispatch,
// one dispatch per merge level (zero workgroups for the levels the count does not need), and a
// dispatch of one thread per element in groups of the size args.comp is given.
// Mirrored by render::passes::particle_sort::merge.
#ifndef SORT_ARGS_GLSL
#define SORT_ARGS_GLSL

const uint SORT_ARGS_COUNT = 0u;
const uint SORT_ARGS_BLOCKS = 1u;
const uint SORT_ARGS_LEVELS = 4u;
const uint SORT_MAX_LEVELS = 16u;
const uint SORT_ARGS_EACH = 52u;
const uint SORT_ARGS_WORDS = 55u;

// Merge levels a sort of n elements in tiles of `tile` needs: ceil(log2(ceil(n / tile))).
uint sort_levels_of(uint n, uint tile) {
    uint blocks = (n + tile - 1u) / tile;
    return blocks <= 1u ? 0u : uint(findMSB(blocks - 1u)) + 1u;
}
#endif
