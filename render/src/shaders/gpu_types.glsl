// CPU<->GPU structs. Each mirrors one Rust definition in render/src/gpu_types.rs; the test
// `gpu_types::tests::glsl_mirrors_match_rust` checks names, types, offsets and sizes (std430).
#ifndef GPU_TYPES_GLSL
#define GPU_TYPES_GLSL

struct FillParams {
    uint count;
    uint seed;
    uint multiplier;
    uint pad0;
};

#endif
