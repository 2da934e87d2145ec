//! `fog.reference`: the host fog by a per-pixel ray-march instead of the froxels, for tests and for
//! judging quality (`RenderVKVolumetricFogReference`; see the shader). Slow by design.

use ash::vk;

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::passes::opaque::{lighting_binding_kinds_with, lighting_binds};
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, Image};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "fog.reference";
const TILE: u32 = 8;

/// The reference pass's pipeline.
pub struct FogReferencePass {
    pipeline: ComputePipeline,
}

impl FogReferencePass {
    /// Creates the pipeline.
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let kinds = lighting_binding_kinds_with(&[
            BindingKind::UniformBuffer,
            BindingKind::StorageBuffer,
            BindingKind::SampledImage,
            BindingKind::StorageImage,
        ]);
        let pipeline =
            gpu.create_compute_pipeline(NAME, shaders::PASSES_FOG_REFERENCE_REFERENCE_COMP, &kinds, 0)?;
        Ok(FogReferencePass { pipeline })
    }

    /// Marches the fog of `fog`'s scene over `hdr` by `depth` (in place of `fog.apply`).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        (frame, world, samplers): (&Buffer, &World, &Samplers),
        fog: &FroxelFog,
        depth: &Image,
        hdr: &Image,
    ) {
        let uses = [
            Use::Buffer(&world.lights, Access::ComputeRead),
            Use::Buffer(&world.shadow_views, Access::ComputeRead),
            Use::Image(&world.shadow_atlas, Access::ComputeSampled),
            Use::Image(&world.projector_tex, Access::ComputeSampled),
            Use::Buffer(&fog.volumes, Access::ComputeRead),
            Use::Image(depth, Access::ComputeSampled),
            Use::Image(hdr, Access::ComputeWrite),
        ];
        let (w, h) = (hdr.extent.width, hdr.extent.height);
        rec.pass(NAME, &uses, |rec| {
            let mut binds = lighting_binds(frame, world, samplers).to_vec();
            binds.extend([
                Bind::Buffer(&fog.uniform),
                Bind::Buffer(&fog.volumes),
                Bind::Sampled(depth, samplers.nearest_clamp, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL),
                Bind::StorageImage(hdr),
            ]);
            rec.dispatch(&self.pipeline, &binds, &[], [w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        });
    }
}
