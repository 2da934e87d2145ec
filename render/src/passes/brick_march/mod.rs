//! `fog.brick_march`: the particle fog ray-marched per pixel through the bricks, lit and
//! self-shadowed, and composited with the froxel fog by depth into the HDR image (after
//! `fog.apply`; see `march.comp` for the algorithm).

use ash::vk;

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::gpu_types::{FogMarchPush, FogUniform};
use crate::particle_fog::pool::BrickPool;
use crate::passes::opaque::{lighting_bindings, IN_COMPUTE};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "fog.brick_march";
/// Workgroup side.
const TILE: u32 = 8;

/// What the march reads and writes.
pub struct MarchInputs<'r> {
    /// Frame constants.
    pub frame: &'r Buffer,
    /// The world (lighting inputs).
    pub world: &'r World,
    /// Samplers.
    pub samplers: &'r Samplers,
    /// The froxel fog, when on.
    pub fog: Option<&'r FroxelFog>,
    /// The bricks.
    pub bricks: &'r BrickPool,
    /// Opaque depth.
    pub depth: &'r Image,
    /// HDR image (read and written).
    pub hdr: &'r Image,
}

/// The march pipeline and stand-ins for a frame without froxel fog.
pub struct BrickMarchPass {
    pipeline: ComputePipeline,
    /// `fog.brick_march.cloud` (RGBA16F): per pixel, where the particle fog starts and ends along
    /// the ray (m) and its optical depth, for the billboards drawn after the march.
    pub cloud: Image,
    no_fog_uniform: Buffer,
    no_fog_volume: Image,
}

impl BrickMarchPass {
    /// Creates the pipeline and a `width` x `height` cloud image.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        let mut no_fog_uniform = gpu.create_buffer(&BufferDesc {
            name: "fog.brick_march.no_fog",
            size: std::mem::size_of::<FogUniform>() as u64,
            usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        no_fog_uniform.write(0, bytemuck::bytes_of(&FogUniform::default()));
        Ok(BrickMarchPass {
            cloud: gpu.create_image(&ImageDesc {
                name: "fog.brick_march.cloud",
                kind: vk::ImageType::TYPE_2D,
                format: vk::Format::R16G16B16A16_SFLOAT,
                extent: vk::Extent3D { width, height, depth: 1 },
                layers: 1,
                array: false,
                usage: vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC,
            })?,
            pipeline: gpu.create_compute_pipeline(
                NAME,
                shaders::PASSES_BRICK_MARCH_MARCH_COMP,
                std::mem::size_of::<FogMarchPush>() as u32,
            )?,
            no_fog_uniform,
            no_fog_volume: gpu.create_image(&ImageDesc {
                name: "fog.brick_march.no_fog_volume",
                kind: vk::ImageType::TYPE_3D,
                format: vk::Format::R8G8B8A8_UNORM,
                extent: vk::Extent3D { width: 1, height: 1, depth: 1 },
                layers: 1,
                array: false,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
            })?,
        })
    }

    /// Records the march over the whole image.
    pub fn record(&self, rec: &mut Recorder<'_>, inp: &MarchInputs<'_>, push: &FogMarchPush) {
        let (fog_uniform, fog_volume) =
            inp.fog.map_or((&self.no_fog_uniform, &self.no_fog_volume), |f| (&f.uniform, &f.integrated));
        let w = inp.world;
        let b = inp.bricks;
        let (read, sampled) = (Access::ComputeRead, Access::ComputeSampled);
        let s = inp.samplers;
        let mut bindings = lighting_bindings(inp.frame, w, s, IN_COMPUTE).to_vec();
        bindings.extend([
            Binding::Uniform(fog_uniform),
            Binding::Sampled(fog_volume, s.linear_clamp, sampled),
            Binding::Sampled(inp.depth, s.nearest_clamp, sampled),
            Binding::StorageImage(inp.hdr, Access::ComputeWrite),
            Binding::Uniform(&b.constants),
            Binding::Storage(&b.page, read),
            Binding::Storage(&b.slot_max, read),
            Binding::Sampled(&b.atlas_density, s.linear_clamp, sampled),
            Binding::Sampled(&b.atlas_tint, s.linear_clamp, sampled),
            Binding::Storage(&b.counters, read),
            Binding::StorageImage(&self.cloud, Access::ComputeWrite),
        ]);
        let (width, height) = (inp.hdr.extent.width, inp.hdr.extent.height);
        let groups = Groups::Direct([width.div_ceil(TILE), height.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &bindings, bytemuck::bytes_of(push), groups);
    }
}
