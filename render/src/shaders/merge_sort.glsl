// A merge sort sized by the count the GPU holds, shared by particles.sort and particles.ribbons
// (render::passes::particle_sort::merge is its Rust half). After particle_sort/args.comp has
// turned the count n into indirect dispatches (sort_args.glsl), two kinds of dispatch:
//   blocks: ceil(n / SORT_TILE) workgroups; each sorts one tile of SORT_TILE elements in shared
//           memory (sort_blocks): every thread sorts its SORT_ITEMS elements in registers, then
//           runs of 2^k elements are merged pairwise, each thread finding where its SORT_ITEMS
//           outputs begin by a merge-path search and merging them serially. With n <= SORT_TILE
//           the one workgroup writes the result: a small sort is one dispatch after the args;
//   merge:  one dispatch per level l, runs of SORT_TILE << l merged pairwise while they are
//           shorter than n (zero workgroups after that). Each workgroup makes SORT_TILE outputs:
//           two threads find the tile's first and last merge-path splits in the runs, the tile's
//           inputs are read into shared memory, then merged as in the blocks.
// Merge path: Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - Parallel Merging Made Simple"
// (IPDPS 2012); the block and tile structure follows ModernGPU's mergesort (Baxter, 2013). Every
// merge takes the earlier run's element on a tie, so the sort is stable; work and memory traffic
// follow n, never the buffers' capacity.
// The runs alternate between two buffers, the blocks writing the one that makes the last level
// read buffer 1 (so a sort whose result is buffer 0 may use it as its first run buffer).
// Shared memory is addressed through sort_slot, an XOR swizzle within each 128-byte row: thread t
// keeps elements 8t..8t+7, so without it the threads of a half warp (64-bit elements) or quarter
// warp (128-bit) storing their r-th element would hit the same banks.
//
// The including shader defines, before the #include:
//   SORT_ELEM, SORT_ELEM_BYTES    the element type (a uvec2 or uvec4) and its size
//   SORT_THREADS, SORT_ITEMS      threads per workgroup (its local_size_x, a multiple of 32),
//                                 elements per thread (8)
//   SORT_BINDING_RUNS0 / _RUNS1 / _ARGS   bindings of the run buffers and the args words
// and, after it, these functions:
//   bool sort_less(SORT_ELEM a, SORT_ELEM b)   a strict weak order
//   SORT_ELEM sort_pad()                         an element no real one sorts after (fills tiles)
//   SORT_ELEM sort_load(uint i)                  the i-th element to sort (i < n)
//   void sort_store(uint i, SORT_ELEM e)         the i-th element of the sorted result
#ifndef MERGE_SORT_GLSL
#define MERGE_SORT_GLSL
#extension GL_EXT_control_flow_attributes : require

#include "sort_args.glsl"

const uint SORT_TILE = SORT_THREADS * SORT_ITEMS;

layout(std430, set = 0, binding = SORT_BINDING_RUNS0) buffer SortRuns0 { SORT_ELEM sort_runs0[]; };
layout(std430, set = 0, binding = SORT_BINDING_RUNS1) buffer SortRuns1 { SORT_ELEM sort_runs1[]; };
layout(std430, set = 0, binding = SORT_BINDING_ARGS) readonly buffer SortArgs { uint sort_args[]; };

bool sort_less(SORT_ELEM a, SORT_ELEM b);
SORT_ELEM sort_pad();
SORT_ELEM sort_load(uint i);
void sort_store(uint i, SORT_ELEM e);

shared SORT_ELEM sort_tile[SORT_TILE];

// Elements per 128 bytes of shared memory (one pass of the banks).
const uint SORT_ROW = 128u / SORT_ELEM_BYTES;

// Where element i of the tile is kept: i with its low three bits XORed by its row's number.
uint sort_slot(uint i) {
    return i ^ ((i / SORT_ROW) & 7u);
}

SORT_ELEM sort_tile_at(uint i) {
    return sort_tile[sort_slot(i)];
}

SORT_ELEM sort_run_read(uint buf, uint i) {
    return buf == 0u ? sort_runs0[i] : sort_runs1[i];
}

void sort_run_write(uint buf, uint i, SORT_ELEM e) {
    if (buf == 0u) {
        sort_runs0[i] = e;
    } else {
        sort_runs1[i] = e;
    }
}

uint sort_levels(uint n) {
    return sort_levels_of(n, SORT_TILE);
}

// How many of the first `diag` outputs of merging sort_tile[a0, a0 + la) with sort_tile[b0, b0 + lb)
// come from the first run (ties go to the first run).
uint sort_path_shared(uint a0, uint la, uint b0, uint lb, uint diag) {
    uint lo = diag > lb ? diag - lb : 0u;
    uint hi = min(diag, la);
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (sort_less(sort_tile_at(b0 + diag - 1u - mid), sort_tile_at(a0 + mid))) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

// As sort_path_shared, over runs [a0, a0 + la) and [b0, b0 + lb) of run buffer `buf`.
uint sort_path_global(uint buf, uint a0, uint la, uint b0, uint lb, uint diag) {
    uint lo = diag > lb ? diag - lb : 0u;
    uint hi = min(diag, la);
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (sort_less(sort_run_read(buf, b0 + diag - 1u - mid), sort_run_read(buf, a0 + mid))) {
            hi = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

// The next SORT_ITEMS outputs of merging sort_tile[ia, ea) with sort_tile[ib, eb) (padding once
// both are used up).
void sort_merge_serial(uint ia, uint ea, uint ib, uint eb, inout SORT_ELEM items[SORT_ITEMS]) {
    SORT_ELEM a = ia < ea ? sort_tile_at(ia) : sort_pad();
    SORT_ELEM b = ib < eb ? sort_tile_at(ib) : sort_pad();
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        bool take_b = ib < eb && (ia >= ea || sort_less(b, a));
        items[r] = take_b ? b : a;
        if (take_b) {
            ++ib;
            b = ib < eb ? sort_tile_at(ib) : sort_pad();
        } else {
            ++ia;
            a = ia < ea ? sort_tile_at(ia) : sort_pad();
        }
    }
}

void sort_order_pair(inout SORT_ELEM a, inout SORT_ELEM b) {
    if (sort_less(b, a)) {
        SORT_ELEM t = a;
        a = b;
        b = t;
    }
}

// Odd-even transposition sort of one thread's elements (stable: equal neighbours never swap).
void sort_registers(inout SORT_ELEM items[SORT_ITEMS]) {
    [[unroll]] for (uint pass = 0u; pass < SORT_ITEMS; pass += 2u) {
        [[unroll]] for (uint r = 0u; r < SORT_ITEMS - 1u; r += 2u) {
            sort_order_pair(items[r], items[r + 1u]);
        }
        [[unroll]] for (uint r = 1u; r < SORT_ITEMS - 1u; r += 2u) {
            sort_order_pair(items[r], items[r + 1u]);
        }
    }
}

void sort_items_to_tile(uint first, uint len, SORT_ELEM items[SORT_ITEMS]) {
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        if (first + r < len) {
            sort_tile[sort_slot(first + r)] = items[r];
        }
    }
}

// The blocks step: workgroup g sorts elements [g SORT_TILE, (g + 1) SORT_TILE) of n.
void sort_blocks(uint n) {
    uint tid = gl_LocalInvocationIndex;
    uint base = gl_WorkGroupID.x * SORT_TILE;
    uint len = min(SORT_TILE, n - base);
    // The power of two the tile is padded to, at least one thread's elements.
    uint span = len <= SORT_ITEMS ? SORT_ITEMS : 1u << (uint(findMSB(len - 1u)) + 1u);
    // Unrolled with clamped indices, so that a thread's loads are in flight together.
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        uint i = r * SORT_THREADS + tid;
        SORT_ELEM e = sort_load(base + min(i, len - 1u));
        if (i < span) {
            sort_tile[sort_slot(i)] = i < len ? e : sort_pad();
        }
    }
    barrier();
    uint first = tid * SORT_ITEMS;
    bool holds_items = first < span;
    SORT_ELEM items[SORT_ITEMS];
    if (holds_items) {
        [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
            items[r] = sort_tile_at(first + r);
        }
        sort_registers(items);
    }
    for (uint w = SORT_ITEMS; w < span; w *= 2u) {
        barrier();
        if (holds_items) {
            sort_items_to_tile(first, span, items);
        }
        barrier();
        if (holds_items) {
            uint a0 = first & ~(2u * w - 1u);
            uint diag = first - a0;
            uint s = sort_path_shared(a0, w, a0 + w, w, diag);
            sort_merge_serial(a0 + s, a0 + w, a0 + w + diag - s, a0 + 2u * w, items);
        }
    }
    barrier();
    if (holds_items) {
        sort_items_to_tile(first, span, items);
    }
    barrier();
    uint levels = sort_levels(n);
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        uint i = r * SORT_THREADS + tid;
        if (i < len && levels == 0u) {
            sort_store(base + i, sort_tile_at(i));
        } else if (i < len) {
            sort_run_write(levels & 1u, base + i, sort_tile_at(i));
        }
    }
}

// Merge level `level`: workgroup g makes outputs [g SORT_TILE, (g + 1) SORT_TILE) of merging the
// pairs of runs of SORT_TILE << level elements.
void sort_merge(uint n, uint level) {
    uint tid = gl_LocalInvocationIndex;
    uint levels = sort_levels(n);
    uint src = (levels - level) & 1u;
    uint w = SORT_TILE << level;
    uint out0 = gl_WorkGroupID.x * SORT_TILE;
    uint a0 = out0 / (2u * w) * (2u * w);
    uint b0 = min(a0 + w, n);
    uint la = b0 - a0;
    uint lb = min(a0 + 2u * w, n) - b0;
    uint d0 = out0 - a0;
    uint d1 = min(d0 + SORT_TILE, la + lb);
    // The tile's first and last splits, passed through the tile's first two elements.
    if (tid < 2u) {
        sort_tile[tid].x = sort_path_global(src, a0, la, b0, lb, tid == 0u ? d0 : d1);
    }
    barrier();
    uint s0 = sort_tile[0].x;
    uint na = sort_tile[1].x - s0;
    barrier();
    uint total = d1 - d0;
    uint ia = a0 + s0;
    uint ib = b0 + d0 - s0;
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        uint i = r * SORT_THREADS + tid;
        if (i < total) {
            sort_tile[sort_slot(i)] = sort_run_read(src, i < na ? ia + i : ib + i - na);
        }
    }
    barrier();
    uint first = tid * SORT_ITEMS;
    SORT_ELEM items[SORT_ITEMS];
    if (first < total) {
        uint s = sort_path_shared(0u, na, na, total - na, first);
        sort_merge_serial(s, na, na + first - s, total, items);
    }
    barrier();
    if (first < total) {
        sort_items_to_tile(first, total, items);
    }
    barrier();
    bool last = level + 1u == levels;
    [[unroll]] for (uint r = 0u; r < SORT_ITEMS; ++r) {
        uint i = r * SORT_THREADS + tid;
        if (i < total && last) {
            sort_store(out0 + i, sort_tile_at(i));
        } else if (i < total) {
            sort_run_write(src ^ 1u, out0 + i, sort_tile_at(i));
        }
    }
}
#endif
