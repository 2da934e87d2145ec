//! `fog.brick_march`: the particle fog ray-marched through the bricks, lit and self-shadowed, with
//! the froxel fog by depth, one ray per [`march_divisor`] x [`march_divisor`] pixels (see
//! `march.comp` for the algorithm); `fog.brick_composite` brings the rays to every pixel of the HDR
//! image (after `fog.apply`). Before the march, `fog.brick_light` lights the bricks' voxels, and in
//! frames where a system's light is eased toward its billboards' (near the range),
//! `fog.carrier_light` first gathers the light its carriers' billboards show into their bricks.

use ash::vk;

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::gpu_types::{FogMarchPush, FogUniform};
use crate::particle_fog::pool::BrickPool;
use crate::particles_gpu::GpuParticles;
use crate::passes::opaque::{lighting_bindings, LightInputs, IN_COMPUTE};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "fog.brick_march";
/// The lighting pass: the light each voxel of the bricks in use scatters toward the camera.
pub const LIGHT: &str = "fog.brick_light";
/// The light of the carriers' billboards, gathered into their bricks (`carrier_light.comp`).
pub const CARRIER_LIGHT: &str = "fog.carrier_light";
/// Threads per workgroup of `fog.carrier_light`.
const CARRIER_WORKGROUP: u32 = 64;
/// Workgroup side.
const TILE: u32 = 8;
/// Image rows per march ray row: the march runs one ray per divisor x divisor pixels, so that its
/// cost follows the cloud rather than the resolution (1080p and 2160p both march 640 x 360 rays).
const ROWS_PER_RAY_ROW: u32 = 360;

/// One march ray per `march_divisor` x `march_divisor` pixels of an image `height` rows high:
/// `setting` (`RenderVKParticleFogMarchDivisor`) when not 0, else the rows over 360, rounded (1
/// below 540 rows, 720p 2, 1080p 3, 2160p 6).
pub fn march_divisor(height: u32, setting: u32) -> u32 {
    if setting > 0 {
        return setting;
    }
    ((height + ROWS_PER_RAY_ROW / 2) / ROWS_PER_RAY_ROW).max(1)
}

/// What the march reads and writes.
pub struct MarchInputs<'r> {
    /// The lighting inputs (frame constants, lights, shadow maps, projector textures).
    pub light: LightInputs<'r>,
    /// Samplers.
    pub samplers: &'r Samplers,
    /// The froxel fog, when on.
    pub fog: Option<FroxelInputs<'r>>,
    /// The bricks.
    pub bricks: &'r BrickPool,
    /// Opaque depth.
    pub depth: &'r Image,
    /// The carriers, in frames where a converted system's light is eased toward its billboards'
    /// (`fog.carrier_light` runs only then).
    pub carriers: Option<CarrierInputs<'r>>,
}

/// The froxel fog the march composites with: its constants (`FogUniform`: the camera's axes, the
/// grid, the slices' distribution, the phase's anisotropy) and its integrated volume (texel s:
/// in-scatter and transmittance from the camera to the far edge of slice s).
#[derive(Clone, Copy)]
pub struct FroxelInputs<'r> {
    /// The constants.
    pub uniform: &'r Buffer,
    /// The integrated volume.
    pub integrated: &'r Image,
}

impl<'r> FroxelInputs<'r> {
    /// The host renderer's froxel fog.
    pub fn of(fog: &'r FroxelFog) -> Self {
        FroxelInputs { uniform: &fog.uniform, integrated: &fog.integrated }
    }
}

/// The converted particles, as `fog.carrier_light` reads them.
#[derive(Clone, Copy)]
pub struct CarrierInputs<'r> {
    /// The particle pool, the alive list the update filled and the particle counters.
    pub particles: [&'r Buffer; 3],
    /// The sources' fog inputs (`particles.fog_sources`).
    pub sources: &'r Buffer,
    /// The particle pool's capacity (threads dispatched).
    pub capacity: u32,
}

impl<'r> CarrierInputs<'r> {
    /// The carriers of `particles` (after its update) with the sources' fog inputs `sources`.
    pub fn of(particles: &'r GpuParticles, sources: &'r Buffer) -> Self {
        CarrierInputs { particles: particles.live_buffers(), sources, capacity: particles.desc().capacity }
    }
}

/// The march pipeline, its per-ray images and stand-ins for a frame without froxel fog.
pub struct BrickMarchPass {
    pipeline: ComputePipeline,
    light: ComputePipeline,
    carrier_light: ComputePipeline,
    /// One ray per `divisor` x `divisor` pixels.
    pub divisor: u32,
    /// `fog.brick_march.rays` (RGBA32F, per ray): what the particle fog adds (rgb) and the
    /// transmittance it leaves (a).
    pub rays: Image,
    /// `fog.brick_march.ray_cloud` (RGBA32F, per ray): where the particle fog starts and ends (m),
    /// its optical depth, and the distance to the opaque surface.
    pub ray_cloud: Image,
    no_fog_uniform: Buffer,
    no_fog_volume: Image,
}

impl BrickMarchPass {
    /// Creates the pipeline and the per-ray images for a `width` x `height` frame, one ray per
    /// `divisor` x `divisor` pixels.
    pub fn new(gpu: &Gpu, (width, height): (u32, u32), divisor: u32) -> Result<Self> {
        let (rw, rh) = (width.div_ceil(divisor), height.div_ceil(divisor));
        let mut no_fog_uniform = gpu.create_buffer(&BufferDesc {
            name: "fog.brick_march.no_fog",
            size: std::mem::size_of::<FogUniform>() as u64,
            usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
            location: MemoryLocation::CpuToGpu,
        })?;
        no_fog_uniform.write(0, bytemuck::bytes_of(&FogUniform::default()));
        Ok(BrickMarchPass {
            divisor,
            rays: ray_image(gpu, "fog.brick_march.rays", rw, rh)?,
            ray_cloud: ray_image(gpu, "fog.brick_march.ray_cloud", rw, rh)?,
            pipeline: gpu.create_compute_pipeline(
                NAME,
                shaders::PASSES_BRICK_MARCH_MARCH_COMP,
                std::mem::size_of::<FogMarchPush>() as u32,
            )?,
            light: gpu.create_compute_pipeline(
                LIGHT,
                shaders::PASSES_BRICK_MARCH_LIGHT_COMP,
                std::mem::size_of::<FogMarchPush>() as u32,
            )?,
            carrier_light: gpu.create_compute_pipeline(
                CARRIER_LIGHT,
                shaders::PASSES_BRICK_MARCH_CARRIER_LIGHT_COMP,
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
                mips: 1,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
            })?,
        })
    }

    /// Remakes the per-ray images for one ray per `divisor` x `divisor` pixels of a `width` x
    /// `height` frame, when that changed.
    pub fn set_divisor(&mut self, gpu: &Gpu, (width, height): (u32, u32), divisor: u32) -> Result<()> {
        if divisor == self.divisor {
            return Ok(());
        }
        let (rw, rh) = (width.div_ceil(divisor), height.div_ceil(divisor));
        self.rays = ray_image(gpu, "fog.brick_march.rays", rw, rh)?;
        self.ray_cloud = ray_image(gpu, "fog.brick_march.ray_cloud", rw, rh)?;
        self.divisor = divisor;
        Ok(())
    }

    /// Records, with carriers, `fog.carrier_light` (a thread per particle of the pool, after
    /// zeroing the sums), then `fog.brick_light`
    /// ([`crate::particle_fog::pool::LIGHT_GROUPS_PER_BRICK`] workgroups per brick in use,
    /// dispatched from the bricks' `dispatch` buffer), then the march: one ray per `divisor` x
    /// `divisor` pixels. `push.gathered` is set here.
    pub fn record(&self, rec: &mut Recorder<'_>, inp: &MarchInputs<'_>, push: &FogMarchPush) {
        let (fog_uniform, fog_volume) =
            inp.fog.map_or((&self.no_fog_uniform, &self.no_fog_volume), |f| (f.uniform, f.integrated));
        let b = inp.bricks;
        let (read, sampled) = (Access::ComputeRead, Access::ComputeSampled);
        let s = inp.samplers;
        let gathered = inp.carriers.is_some();
        let soft = crate::passes::billboards::SOFT_FADE_M;
        let push = FogMarchPush { gathered: [if gathered { 1.0 } else { 0.0 }, soft, 0.0, 0.0], ..*push };
        if let Some(c) = &inp.carriers {
            rec.fill_buffer(&b.billboard_light, 0);
            let [pool, alive, counters] = c.particles;
            let mut gather = lighting_bindings(&inp.light, s, IN_COMPUTE).to_vec();
            gather.extend([
                Binding::Uniform(&b.constants),
                Binding::Storage(&b.page, read),
                Binding::Storage(&b.slot_max, read),
                Binding::Storage(pool, read),
                Binding::Storage(alive, read),
                Binding::Storage(counters, read),
                Binding::Storage(c.sources, read),
                Binding::Sampled(inp.depth, s.nearest_clamp, sampled),
                Binding::Storage(&b.billboard_light, Access::ComputeWrite),
            ]);
            let groups = Groups::Direct([c.capacity.div_ceil(CARRIER_WORKGROUP).max(1), 1, 1]);
            rec.compute(CARRIER_LIGHT, &self.carrier_light, &gather, bytemuck::bytes_of(&push), groups);
        }
        let mut light = lighting_bindings(&inp.light, s, IN_COMPUTE).to_vec();
        light.extend([
            Binding::Uniform(fog_uniform),
            Binding::Uniform(&b.constants),
            Binding::Storage(&b.page, read),
            Binding::Storage(&b.slot_max, read),
            Binding::Sampled(&b.atlas_density, s.linear_clamp, sampled),
            Binding::Storage(&b.counters, read),
            Binding::Storage(&b.requests, read),
            Binding::Storage(b.slot_keys(), read),
            Binding::StorageImage(&b.atlas_light, Access::ComputeWrite),
            Binding::Storage(&b.billboard_light, read),
            Binding::StorageImage(&b.atlas_sun, Access::ComputeWrite),
        ]);
        let per_brick = Groups::Indirect(&b.dispatch, 24);
        rec.compute(LIGHT, &self.light, &light, bytemuck::bytes_of(&push), per_brick);
        let march = [
            Binding::Uniform(inp.light.frame),
            Binding::Uniform(fog_uniform),
            Binding::Sampled(fog_volume, s.linear_clamp, sampled),
            Binding::Sampled(inp.depth, s.nearest_clamp, sampled),
            Binding::StorageImage(&self.rays, Access::ComputeWrite),
            Binding::Uniform(&b.constants),
            Binding::Storage(&b.page, read),
            Binding::Storage(&b.slot_max, read),
            Binding::Sampled(&b.atlas_density, s.linear_clamp, sampled),
            Binding::Sampled(&b.atlas_tint, s.linear_clamp, sampled),
            Binding::Sampled(&b.atlas_light, s.linear_clamp, sampled),
            Binding::Storage(&b.counters, read),
            Binding::StorageImage(&self.ray_cloud, Access::ComputeWrite),
            Binding::Sampled(&b.atlas_sun, s.linear_clamp, sampled),
        ];
        let (width, height) = (self.rays.extent.width, self.rays.extent.height);
        let groups = Groups::Direct([width.div_ceil(TILE), height.div_ceil(TILE), 1]);
        rec.compute(NAME, &self.pipeline, &march, bytemuck::bytes_of(&push), groups);
    }
}

/// A per-ray RGBA32F storage image.
fn ray_image(gpu: &Gpu, name: &'static str, width: u32, height: u32) -> Result<Image> {
    gpu.create_image(&ImageDesc {
        name,
        kind: vk::ImageType::TYPE_2D,
        format: vk::Format::R32G32B32A32_SFLOAT,
        extent: vk::Extent3D { width, height, depth: 1 },
        layers: 1,
        array: false,
        mips: 1,
        usage: vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_SRC,
    })
}
