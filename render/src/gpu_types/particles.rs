//! The GPU particles' structs: the particle, emitter, burst and counters of the pool, the draw
//! command, and the push constants of the simulation, cull, sort, ribbon, batch and billboard passes.

use super::{GlslType, GpuField, GpuStruct};

gpu_struct! {
    size = 128;
    /// One particle of the GPU pool (`particles.pool`): what every pass reads. The template
    /// values it was born with live beside it in `particles.templates` ([`GpuParticleTemplate`]).
    pub struct GpuParticle {
        /// Position (m, region); w = age (s).
        pub pos_age: [f32; 4],
        /// Velocity (m/s); w = lifetime (s).
        pub vel_max_age: [f32; 4],
        /// FOLLOW_SRC offset from the source (m); w = glow (quantised to 1/255).
        pub offset_glow: [f32; 4],
        /// Current colour, RGBA 0..1.
        pub color: [f32; 4],
        /// Current size (m): x width, y height; zw unused.
        pub scale: [f32; 4],
        /// x source id (emitter slot), y emission serial, z particle flags, w blend (src | dst << 8).
        pub ids: [u32; 4],
        /// Ribbon axis (unit, region axes; zero for a ribbon's unlinked first particle and for
        /// non-ribbons); w unused.
        pub axis: [f32; 4],
        /// Ribbon links: x the serial of the first particle of its ribbon, y 1 from emission until
        /// `particles.ribbons` resolves its link at birth, zw unused.
        pub ribbon: [u32; 4],
    }
}

gpu_struct! {
    size = 80;
    /// The template values a particle was born with (`particles.templates`, indexed like
    /// `particles.pool`), copied from its emitter by `particles.emit` as the viewer copies them
    /// into each `LLViewerPart` (`LLViewerPartSourceScript::update`): a source whose system
    /// changes leaves its particles in flight as they were. Only `particles.update` reads it.
    pub struct GpuParticleTemplate {
        /// Start colour, RGBA 0..1.
        pub start_color: [f32; 4],
        /// End colour, RGBA 0..1.
        pub end_color: [f32; 4],
        /// Start size xy, end size zw (m).
        pub scales: [f32; 4],
        /// Acceleration (m/s^2, region axes); w unused.
        pub accel: [f32; 4],
        /// x start glow, y end glow (0..1); zw unused.
        pub glow: [f32; 4],
    }
}

gpu_struct! {
    size = 144;
    /// Per-source constants of the GPU simulation (`particles.emitters`, indexed by source id).
    pub struct GpuEmitter {
        /// Source position (m); w = minimum burst speed (m/s).
        pub position_speed_min: [f32; 4],
        /// Target position (m, the source when there is none); w = maximum burst speed (m/s).
        pub target_speed_max: [f32; 4],
        /// Particle acceleration (m/s^2); w = particle lifetime (s).
        pub accel_max_age: [f32; 4],
        /// Template start colour.
        pub start_color: [f32; 4],
        /// Template end colour.
        pub end_color: [f32; 4],
        /// Start size xy, end size zw (m).
        pub scales: [f32; 4],
        /// x inner angle, y outer angle (rad), z start glow, w end glow.
        pub angles_glow: [f32; 4],
        /// x pattern kind (0 drop, 1 explode, 2 angle, 3 cone), y particle flags (HUD included),
        /// z system flags, w blend (src | dst << 8).
        pub params: [u32; 4],
        /// The source object's local +Z in region axes (`Q * (0, 0, 1)`); w = 1 while the source
        /// object exists, 0 once it was removed (its newest ribbon segment then collapses).
        pub axis: [f32; 4],
    }
}

gpu_struct! {
    size = 64;
    /// One burst of this frame (`particles.bursts`): candidates `first..first + count`.
    pub struct GpuBurst {
        /// The combined rotation `R * Q` (omega rotation after the object rotation), xyzw.
        pub rotation: [f32; 4],
        /// x source id, y first serial, z candidate count, w index of its first candidate.
        pub ids: [u32; 4],
        /// x radius of the burst's first candidate (m), y of the others (m), z the least drop
        /// probability of each candidate (distance throttling), w unused.
        pub radius: [f32; 4],
        /// x the source's random stream (its number in order of addition, as the reference
        /// numbers sources; slots are reused, streams are not), yzw unused.
        pub stream: [u32; 4],
    }
}

gpu_struct! {
    size = 32;
    /// Atomic counters of the GPU simulation (`particles.counters`); the last four are totals
    /// since the pool was created.
    pub struct GpuParticleCounters {
        /// Entries in alive list 0.
        pub alive0: u32,
        /// Entries in alive list 1.
        pub alive1: u32,
        /// Entries in the dead list.
        pub dead: u32,
        /// Particles created.
        pub emitted: u32,
        /// Candidates refused because the pool was full.
        pub refused: u32,
        /// Candidates or particles discarded for a position beyond 1e6 m or non-finite.
        pub discarded: u32,
        /// Particles that died of age.
        pub died: u32,
        /// Candidates dropped by the burst share or distance throttling.
        pub dropped: u32,
    }
}

gpu_struct! {
    size = 64;
    /// Push constants of `particles.emit` and `particles.update`.
    pub struct ParticleSimPush {
        /// x current alive list (0/1), y candidates this frame, z bursts this frame, w capacity.
        pub counts: [u32; 4],
        /// Region wind (m/s); w = the clamped step (s).
        pub wind_dt: [f32; 4],
        /// x seed low word, y seed high word, zw unused.
        pub seed: [u32; 4],
        /// x the burst share (1 without a budget), yzw unused.
        pub budget: [f32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// `VkDrawIndirectCommand` (`particles.draw_args`): one billboard instance per visible particle.
    pub struct GpuDrawIndirect {
        /// Vertices per instance (6: two triangles).
        pub vertex_count: u32,
        /// Visible particles.
        pub instance_count: u32,
        /// First vertex (0).
        pub first_vertex: u32,
        /// First instance (0).
        pub first_instance: u32,
    }
}

gpu_struct! {
    size = 112;
    /// Push constants of `particles.cull`.
    pub struct ParticleCullPush {
        /// Frustum plane 0 (world space, normal inside: a sphere is visible where
        /// `dot(n, p) + w >= -r` for every plane); planes 0..5 are left, right, bottom, top,
        /// near, far.
        pub plane0: [f32; 4],
        /// Frustum plane 1.
        pub plane1: [f32; 4],
        /// Frustum plane 2.
        pub plane2: [f32; 4],
        /// Frustum plane 3.
        pub plane3: [f32; 4],
        /// Frustum plane 4.
        pub plane4: [f32; 4],
        /// Frustum plane 5.
        pub plane5: [f32; 4],
        /// x alive list to read (0/1), y mode (0 reset, 1 cull), z capacity, w unused.
        pub counts: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `particles.billboards` (and its depth copy).
    pub struct BillboardPush {
        /// Camera forward axis (unit, world); w = soft-particle fade distance (m, 0 = off).
        pub forward_soft: [f32; 4],
        /// x camera near plane (m), y far plane (m), z 1 when froxel fog is looked up, w unused.
        pub planes: [f32; 4],
        /// x blend pair drawn (source | dest << 8), y 1 = custom blend (no alpha discard),
        /// z 1 = additive (dest ONE: no fog in-scatter added), w unused.
        pub blend: [u32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of `particles.batch`.
    pub struct BatchPush {
        /// x mode (0 reset, 1 starts, 2 commands), y most starts recorded, z pipelines (pairs),
        /// w unused.
        pub params: [u32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of `particles.ribbons` (its sort and its links).
    pub struct RibbonPush {
        /// x mode (sort: 0 blocks, 1 merge; links: 0 link at birth, 1 tail, 2 parents), y the
        /// merge level (the sort's merge), zw unused.
        pub params: [u32; 4],
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of the merge sort's args step (`particles.sort.args`,
    /// `particles.ribbons.args`).
    pub struct SortArgsPush {
        /// x the word of the source buffer holding the count to sort, y elements per tile,
        /// z threads per group of the per-element dispatch, w unused.
        pub params: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// A particle a viewer simulated itself, handed to the embedded particle fog as a density
    /// carrier (`FogContext::set_carriers`; `pf_carrier` in C): what the brick passes read of a
    /// particle, and nothing of its motion. `embed.carriers` writes each into the carrier pool.
    pub struct GpuCarrier {
        /// Position (m, region axes); w = age (s), which widens its kernel as it diffuses.
        pub position_age: [f32; 4],
        /// Colour as the viewer draws it, RGBA 0..1 (alpha before the `1 - weight` fade).
        pub color: [f32; 4],
        /// Width and height (m).
        pub size: [f32; 2],
        /// Its system's index (`FogContext::system_index`).
        pub system: u32,
        /// The particle's PSYS flags (`PSYS_PART_EMISSIVE_MASK` makes it emit its colour).
        pub flags: u32,
    }
}

gpu_struct! {
    size = 16;
    /// Push constants of `embed.carriers`.
    pub struct CarrierPush {
        /// x carriers this frame, y the alive list written (0 or 1), zw unused.
        pub counts: [u32; 4],
    }
}

gpu_struct! {
    size = 48;
    /// Push constants of `particles.sort` (blocks, merge levels).
    pub struct ParticleSortPush {
        /// Camera position (m, world); w unused.
        pub camera: [f32; 4],
        /// Camera forward axis (unit); w unused.
        pub forward: [f32; 4],
        /// x mode (0 blocks, 1 merge), y the merge level (merge), zw unused.
        pub params: [u32; 4],
    }
}
