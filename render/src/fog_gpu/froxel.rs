//! The froxel fog's resources and per-frame constants: the camera-aligned grid (size from the
//! settings), this frame's injected media, the media blended with history (two copies, ping-pong),
//! the no-history media, the integrated result, the fog volumes, and last frame's camera for
//! reprojection.
//!
//! Slices are exponential in view depth from [`FROXEL_NEAR_M`] to the range (slice 0 reaches back
//! to the camera). With the default 64 slices to 96 m each slice is 9.7 % of its distance deep:
//! 0.49 m at 5 m, 1.9 m at 20 m. A froxel of the default 160-wide grid under a 65-degree vertical
//! field of view at 16:9 is 1.4 % of its distance wide (0.07 m at 5 m), so froxels are about seven
//! times deeper than wide at every distance, not cubic: the inject pass spreads its samples through
//! the depth for that reason.
//!
//! History is reset (weight 0) on the first frame, after a grid change, and by the temporal shader
//! wherever reprojection leaves the grid; its weight otherwise is `RenderVKVolumetricFogHistoryWeight`.

use ash::vk;
use glam::{Mat4, Vec3};

use crate::error::Result;
use crate::gpu_types::{FogUniform, GpuFogVolume};
use crate::view::{CameraView, CAMERA_FAR_M, CAMERA_NEAR_M};
use crate::vk::context::Gpu;
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};

/// View depth where the exponential slice distribution starts, m (slice 0 still reaches the camera).
pub const FROXEL_NEAR_M: f32 = 0.25;
/// Texel format of the froxel volumes.
pub const FROXEL_FORMAT: vk::Format = vk::Format::R16G16B16A16_SFLOAT;
/// The frame index the jitter sequences see wraps at this many frames (it travels as a float).
const JITTER_PERIOD: u32 = 4096;

/// The height fog's medium (the scene's `[fog]` block, as plain numbers).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct HeightFogMedium {
    /// Extinction coefficient at `base_height_m`, 1/m.
    pub density: f32,
    /// Exponential falloff with height, 1/m.
    pub falloff_per_m: f32,
    /// Height of the reference level, m.
    pub base_height_m: f32,
    /// Single-scattering albedo, linear RGB.
    pub albedo: Vec3,
    /// Henyey-Greenstein asymmetry `g`.
    pub anisotropy: f32,
}

/// Froxel grid size and range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FroxelGrid {
    /// Froxels across, down and in depth.
    pub dims: [u32; 3],
    /// Far end of the grid, m.
    pub far_m: f32,
}

/// The fog's GPU resources.
pub struct FroxelFog {
    /// Grid in use.
    pub grid: FroxelGrid,
    /// The fog constants (host-visible uniform).
    pub uniform: Buffer,
    /// This frame's injected media (scatter of the lights with history, extinction).
    pub current: Image,
    /// Injected media blended with history, ping-pong: one is written this frame ([`FroxelFog::hist_out`]).
    pub hist: [Image; 2],
    /// Injected media of lights that opt out of history.
    pub now: Image,
    /// Integrated in-scatter and transmittance.
    pub integrated: Image,
    /// Fog volumes (at least one slot).
    pub volumes: Buffer,
    volume_count: u32,
    slot: usize,
    prev_clip_from_world: Option<Mat4>,
    frame: u32,
}

impl FroxelFog {
    /// Creates the grid and uploads the fog volumes (`volumes`, in the GPU form).
    pub fn new(gpu: &mut Gpu, volumes: &[GpuFogVolume], grid: FroxelGrid) -> Result<FroxelFog> {
        let volume = |name: &str| {
            let [w, h, d] = grid.dims;
            gpu.create_image(&ImageDesc {
                name,
                kind: vk::ImageType::TYPE_3D,
                format: FROXEL_FORMAT,
                extent: vk::Extent3D { width: w, height: h, depth: d },
                layers: 1,
                array: false,
                mips: 1,
                usage: vk::ImageUsageFlags::STORAGE
                    | vk::ImageUsageFlags::SAMPLED
                    | vk::ImageUsageFlags::TRANSFER_SRC
                    | vk::ImageUsageFlags::TRANSFER_DST,
            })
        };
        let current = volume("fog.froxel_inject.current")?;
        let hist = [volume("fog.froxel_temporal.hist0")?, volume("fog.froxel_temporal.hist1")?];
        let now = volume("fog.froxel_inject.now")?;
        let integrated = volume("fog.froxel_integrate.out")?;
        let uniform = gpu.create_buffer(&BufferDesc {
            name: "fog.constants",
            size: std::mem::size_of::<FogUniform>() as u64,
            usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
            location: MemoryLocation::Staged,
        })?;
        let mut gpu_volumes = volumes.to_vec();
        let volume_count = gpu_volumes.len() as u32;
        if gpu_volumes.is_empty() {
            gpu_volumes.push(GpuFogVolume::default());
        }
        let bytes: &[u8] = bytemuck::cast_slice(&gpu_volumes);
        let volumes = gpu.create_buffer(&BufferDesc {
            name: "fog.volumes",
            size: bytes.len() as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuOnly,
        })?;
        gpu.upload(&volumes, bytes)?;
        Ok(FroxelFog {
            grid,
            uniform,
            current,
            hist,
            now,
            integrated,
            volumes,
            volume_count,
            slot: 0,
            prev_clip_from_world: None,
            frame: 0,
        })
    }

    /// Writes this frame's constants (call between submissions) and flips the history.
    pub fn begin_frame(&mut self, medium: &HeightFogMedium, view: &CameraView, history_weight: f32) {
        self.slot = 1 - self.slot;
        let weight = if self.prev_clip_from_world.is_some() { history_weight } else { 0.0 };
        let prev = self.prev_clip_from_world.unwrap_or(view.clip_from_world);
        let constants = fog_uniform(medium, view, self.grid, prev, self.frame, weight, self.volume_count);
        self.uniform.write(0, bytemuck::bytes_of(&constants));
        self.prev_clip_from_world = Some(view.clip_from_world);
        self.frame = self.frame.wrapping_add(1);
    }

    /// The history written this frame.
    pub fn hist_out(&self) -> &Image {
        &self.hist[self.slot]
    }

    /// Last frame's history.
    pub fn hist_in(&self) -> &Image {
        &self.hist[1 - self.slot]
    }
}

fn fog_uniform(
    hf: &HeightFogMedium,
    view: &CameraView,
    grid: FroxelGrid,
    prev: Mat4,
    frame: u32,
    history_weight: f32,
    volume_count: u32,
) -> FogUniform {
    let [w, h, d] = grid.dims;
    FogUniform {
        prev_clip_from_world: prev.to_cols_array_2d(),
        forward_tan: view.forward.extend((view.fov_y * 0.5).tan()).to_array(),
        right_aspect: view.right.extend(view.aspect).to_array(),
        up: view.up.extend(0.0).to_array(),
        grid: [w as f32, h as f32, d as f32, (frame % JITTER_PERIOD) as f32],
        slices: [FROXEL_NEAR_M, grid.far_m, (grid.far_m / FROXEL_NEAR_M).ln(), history_weight],
        height_fog: [hf.density, hf.falloff_per_m, hf.base_height_m, hf.anisotropy],
        fog_albedo: hf.albedo.extend(volume_count as f32).to_array(),
        camera_planes: [CAMERA_NEAR_M, CAMERA_FAR_M, 0.0, 0.0],
    }
}
