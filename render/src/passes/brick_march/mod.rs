//! `fog.brick_march`: the particle fog ray-marched per pixel through the bricks, lit and
//! self-shadowed, and composited with the froxel fog by depth into the HDR image (after
//! `fog.apply`; see `march.comp` for the algorithm).

use ash::vk;

use crate::error::Result;
use crate::froxel::FroxelFog;
use crate::gpu_types::{FogMarchPush, FogUniform};
use crate::particle_fog::pool::BrickPool;
use crate::passes::opaque::lighting_binds;
use crate::shaders;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{Bind, BindingKind, ComputePipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use crate::world::World;

/// The pass name.
pub const NAME: &str = "fog.brick_march";
/// Workgroup side.
const TILE: u32 = 8;

/// Lighting 0..5, fog uniform, integrated froxel fog, depth, HDR, brick constants, page table,
/// brick peaks, atlas density, atlas tint, counters, cloud extent.
const KINDS: [BindingKind; 17] = [
    BindingKind::UniformBuffer,
    BindingKind::StorageBuffer,
    BindingKind::StorageBuffer,
    BindingKind::StorageBuffer,
    BindingKind::SampledImage,
    BindingKind::SampledImage,
    BindingKind::UniformBuffer,
    BindingKind::SampledImage,
    BindingKind::SampledImage,
    BindingKind::StorageImage,
    BindingKind::UniformBuffer,
    BindingKind::StorageBuffer,
    BindingKind::StorageBuffer,
    BindingKind::SampledImage,
    BindingKind::SampledImage,
    BindingKind::StorageBuffer,
    BindingKind::StorageImage,
];

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
                &KINDS,
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
        let uses = [
            Use::Buffer(&w.lights, Access::ComputeRead),
            Use::Buffer(&w.shadow_views, Access::ComputeRead),
            Use::Image(&w.shadow_atlas, Access::ComputeSampled),
            Use::Image(&w.projector_tex, Access::ComputeSampled),
            Use::Image(fog_volume, Access::ComputeSampled),
            Use::Image(inp.depth, Access::ComputeSampled),
            Use::Image(inp.hdr, Access::ComputeWrite),
            Use::Buffer(&b.page, Access::ComputeRead),
            Use::Buffer(&b.slot_max, Access::ComputeRead),
            Use::Image(&b.atlas_density, Access::ComputeSampled),
            Use::Image(&b.atlas_tint, Access::ComputeSampled),
            Use::Buffer(&b.counters, Access::ComputeRead),
            Use::Image(&self.cloud, Access::ComputeWrite),
        ];
        let ro = vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
        let s = inp.samplers;
        let [b0, b1, b2, b3, b4, b5] = lighting_binds(inp.frame, w, s);
        let binds = [
            b0,
            b1,
            b2,
            b3,
            b4,
            b5,
            Bind::Buffer(fog_uniform),
            Bind::Sampled(fog_volume, s.linear_clamp, ro),
            Bind::Sampled(inp.depth, s.nearest_clamp, ro),
            Bind::StorageImage(inp.hdr),
            Bind::Buffer(&b.constants),
            Bind::Buffer(&b.page),
            Bind::Buffer(&b.slot_max),
            Bind::Sampled(&b.atlas_density, s.linear_clamp, ro),
            Bind::Sampled(&b.atlas_tint, s.linear_clamp, ro),
            Bind::Buffer(&b.counters),
            Bind::StorageImage(&self.cloud),
        ];
        let (width, height) = (inp.hdr.extent.width, inp.hdr.extent.height);
        rec.pass(NAME, &uses, |rec| {
            rec.dispatch(
                &self.pipeline,
                &binds,
                bytemuck::bytes_of(push),
                [width.div_ceil(TILE), height.div_ceil(TILE), 1],
            );
        });
    }
}
