//! The particle fog read back for tests and `render --export-density DIR`: the density field as
//! the march samples it ([`fog::density::Field`], from the atlas of the bricks in use, resampled
//! through the frame's billow warp by [`march_grid`]), the
//! carriers (from the live particles of converted systems) and the camera, written as
//! `<scene>_density.vol` (Mitsuba 3 grid volume), `<scene>_carriers.json` and `<scene>_camera.json`
//! ([`file_names`]; the volume only while there are bricks).
//! Per-particle work on the CPU happens only here, on request.

use std::collections::HashMap;
use std::path::Path;

use fog::bricks::{BRICK_STORED, BRICK_VOXELS};
use fog::density::{export_grid, write_mitsuba_vol, Field, Grid};
use fog::march::Billow;
use fog::splat::Carrier;
use glam::{IVec3, Vec3};
use serde::Serialize;
use serde_json::json;

use crate::atomic_file::{output_error, AtomicFile};
use crate::error::{RenderError, Result};
use crate::gpu_types::{GpuFogSource, GpuParticle};
use crate::particle_fog::ParticleFog;
use crate::particles_gpu::GpuParticles;
use crate::vk::context::Gpu;

/// Reads the bricks in use of the last frame back as a [`Field`] (interior voxels of the atlas).
pub fn read_field(gpu: &mut Gpu, fog: &ParticleFog) -> Result<Field> {
    let p = &fog.pool;
    let counters: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&p.counters)?);
    let lists: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(&p.requests)?);
    let keys: Vec<[i32; 4]> = bytemuck::pod_collect_to_vec(&gpu.read_buffer(p.slot_keys())?);
    let atlas: Vec<f32> = bytemuck::pod_collect_to_vec(&gpu.read_image(&p.atlas_density)?);
    let used = counters[super::stats::words::USED] as usize;
    let start = p.max_requests as usize;
    let slots =
        lists.get(start..start + used).ok_or_else(|| RenderError::Unsupported("brick list".into()))?;
    let mut bricks = HashMap::new();
    for &slot in slots {
        let key = keys[slot as usize];
        let values = interior(&atlas, p.atlas_bricks, slot);
        bricks.insert((key[3] as usize, IVec3::new(key[0], key[1], key[2])), values);
    }
    Ok(Field { voxel_size_m: fog.key.voxel_size_m, bricks })
}

/// The 8³ interior of slot `slot` in an atlas of `dims` bricks, x fastest.
fn interior(atlas: &[f32], dims: [u32; 3], slot: u32) -> Vec<f32> {
    let s = BRICK_STORED as usize;
    let (w, h) = (dims[0] as usize * s, dims[1] as usize * s);
    let (row, layer) = (dims[0], dims[0] * dims[1]);
    let b = [(slot % row) as usize, ((slot / row) % dims[1]) as usize, (slot / layer) as usize];
    let n = BRICK_VOXELS as usize;
    let mut out = Vec::with_capacity(n * n * n);
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let t = [b[0] * s + x + 1, b[1] * s + y + 1, b[2] * s + z + 1];
                out.push(atlas[(t[2] * h + t[1]) * w + t[0]]);
            }
        }
    }
    out
}

/// The carriers of the last frame: every live particle of a system with a weight above zero,
/// with the inputs `fog.brick_splat` read (`sources`, one per source id).
pub fn read_carriers(
    gpu: &mut Gpu,
    particles: &GpuParticles,
    sources: &[GpuFogSource],
) -> Result<Vec<Carrier>> {
    let indices = particles.read_live_indices(gpu)?;
    let live: Vec<GpuParticle> = particles.read_live(gpu)?;
    Ok(indices
        .iter()
        .zip(&live)
        .filter_map(|(&slot, p)| carrier(slot, p, sources.get(p.ids[0] as usize)?))
        .collect())
}

/// The carrier pool particle `p` in `slot` is to the splat, with its source's inputs `s`; `None`
/// while the source's weight is 0 (a billboard).
pub fn carrier(slot: u32, p: &GpuParticle, s: &GpuFogSource) -> Option<Carrier> {
    (s.weight_mass[0] > 0.0).then(|| Carrier {
        key: slot,
        system: p.ids[0],
        position: Vec3::new(p.pos_age[0], p.pos_age[1], p.pos_age[2]),
        size_m: [p.scale[0], p.scale[1]],
        age_s: p.pos_age[3],
        alpha: p.color[3],
        tex_mean_alpha: s.weight_mass[1],
        weight: s.weight_mass[0],
        density_scale: s.weight_mass[2],
        tint: if s.tint[3] > 0.5 {
            [s.tint[0], s.tint[1], s.tint[2]]
        } else {
            std::array::from_fn(|i| p.color[i].clamp(0.0, 1.0) * s.tint[i])
        },
        emissive: p.ids[2] & particles::types::PartFlags::EMISSIVE != 0,
        billboard_match: s.weight_mass[3],
    })
}

/// The camera a frame used, as `<scene>_camera.json` holds it.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CameraExport {
    /// Eye, m.
    pub position: [f32; 3],
    /// Point looked at, m.
    pub target: [f32; 3],
    /// Up axis.
    pub up: [f32; 3],
    /// Vertical field of view, degrees.
    pub fov_y_deg: f32,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Near plane, m.
    pub near: f32,
    /// Far plane, m.
    pub far: f32,
}

/// The files an export of `scene` consists of, in the order they are committed: the density
/// volume, the carriers and the camera.
pub fn file_names(scene: &str) -> [String; 3] {
    [format!("{scene}_density.vol"), format!("{scene}_carriers.json"), format!("{scene}_camera.json")]
}

/// The grid of what the march sees in `field` with the billow warp `billow` of the frame
/// ([`Billow::extinction_at`]: the field read through the warp, weighted by its Jacobian), grown
/// by the warp's largest displacement; `None` without bricks.
pub fn march_grid(field: &Field, billow: &Billow) -> Option<Grid> {
    let cells = if billow.strength > 0.0 { (WARPED_CELLS_PER_VOXEL, WARPED_SUBCELLS) } else { (1, 1) };
    export_grid(field, billow.max_displacement_m(), cells, |p| billow.extinction_at(field, p))
}

/// Export cells per finest voxel along each axis while the billows warp the field (module docs).
pub const WARPED_CELLS_PER_VOXEL: u32 = 2;
/// Sub-cells per axis each export cell averages while the billows warp the field (module docs).
pub const WARPED_SUBCELLS: u32 = 2;

/// Writes `<scene>_density.vol` (`grid`, usually [`march_grid`]), `<scene>_carriers.json` and
/// `<scene>_camera.json` into `dir`, each a new file renamed into place ([`AtomicFile`]) once all
/// three are on disk. Without a grid (no bricks) there is no volume, and one left by an earlier
/// export is removed, so the three files always describe one frame.
pub fn write_files(
    dir: &Path,
    scene: &str,
    grid: Option<&Grid>,
    carriers: &[Carrier],
    density_scale: f32,
    camera: &CameraExport,
) -> Result<()> {
    let [vol_name, carriers_name, camera_name] = file_names(scene);
    let volume = match grid {
        Some(grid) => {
            let mut file = AtomicFile::create(&dir.join(&vol_name))?;
            write_mitsuba_vol(grid, &mut file).map_err(|e| output_error(file.dest(), e))?;
            Some(file)
        }
        None => None,
    };
    let list: Vec<_> = carriers
        .iter()
        .map(|c| {
            json!({
                "system": c.system,
                "position": c.position.to_array(),
                "size": c.size_m,
                "alpha": c.alpha,
                "tex_mean_alpha": c.tex_mean_alpha,
                "weight": c.weight,
                "mass": c.mass_m2(),
            })
        })
        .collect();
    let doc = json!({ "density_scale": density_scale, "carriers": list });
    let cam = serde_json::to_value(camera).map_err(|e| RenderError::BadInput(e.to_string()))?;
    let json_file = |name: &str, v: &serde_json::Value| -> Result<AtomicFile> {
        let mut file = AtomicFile::create(&dir.join(name))?;
        serde_json::to_writer_pretty(&mut file, v).map_err(|e| output_error(file.dest(), e))?;
        Ok(file)
    };
    let files = [json_file(&carriers_name, &doc)?, json_file(&camera_name, &cam)?];
    match volume {
        Some(file) => file.commit()?,
        None => remove_old(&dir.join(&vol_name))?,
    }
    files.into_iter().try_for_each(AtomicFile::commit)
}

/// Removes the file (or link) `path` left by an earlier export, if any.
fn remove_old(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(output_error(path, e)),
        _ => Ok(()),
    }
}
