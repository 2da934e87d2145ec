//! `render --export-mitsuba DIR`: the last frame as a Mitsuba 3 scene, and this renderer's own
//! radiance beside it, so that an independent, physically based renderer can be set against it.
//!
//! Written into `DIR`:
//! - `<scene>.xml`: the camera (position, look-at, vertical field of view, pixel size, box pixel
//!   filter), the sun (`directional`), point lights (`point`), spot lights (`spot` with the
//!   host's falloff as its texture, `<scene>_spot_<n>.exr`), projectors (`projector` with its
//!   texture, `<scene>_projector_<n>.exr`), each opaque object as a world-space mesh
//!   (`<scene>_meshes/<n>.ply`) with its diffuse albedo, and the particle fog (when the frame
//!   had one) as a heterogeneous medium over the exported extinction grid
//!   (`<scene>_density.vol`) with a Henyey-Greenstein phase of the froxel fog's asymmetry and
//!   albedo 1 (the bricks' tint is not exported); `volpath`, with `max_depth` and
//!   `spp` as parameters (`$max_depth`, default 2; `$spp`, default 64);
//! - `<scene>_hdr.exr`: the frame's linear radiance before exposure and tone mapping (R, G, B);
//! - `<scene>_fog.exr`: what the frame adds in front of the opaque surfaces (R, G, B: the frame
//!   less the opaque surfaces alone times the particle fog's transmittance; the froxel fog's and
//!   billboards' share too where they are on) and the particle fog's transmittance (A).
//!
//! **Units.** The scene's light units are Mitsuba's: an illuminance `E` is a `directional`
//! emitter's `irradiance`, a light's candela-like `intensity` a `point` or `spot` emitter's
//! `intensity` (irradiance `I / d^2`), a diffuse surface reflects `albedo E / pi`.
//!
//! **What is written as the host renderer computes it rather than as physics would.**
//! - *Ambient and emission.* The host lights every surface with an unoccluded hemisphere
//!   (`albedo * mix(ground, sky, n.z / 2 + 1/2)`: no wall or floor shadows it) and lets
//!   emissive objects glow without lighting anything else. Both are written as each mesh's
//!   per-vertex emitted radiance (an `area` emitter whose `radiance` is the mesh's
//!   `vertex_color`, id `host_terms_<n>`), the exact value at each vertex. Rendered at
//!   `max_depth` 1 (seen directly only) they are what the host draws; at a higher depth they
//!   would light their neighbours, which the host does not do, so `tools/mitsuba_compare.py`
//!   renders them at depth 1 and the lights (ids `sun`, `light_<n>`) at the depth asked, and
//!   adds the two. A physically based ambient would be an `envmap` of the two hemispheres.
//! - *Spot falloff.* The host's spot fades as `smoothstep(cos outer, cos inner, cos angle)`;
//!   Mitsuba's `spot` fades linearly in the angle between its `beam_width` and `cutoff_angle`.
//!   The export sets the cut-off at the outer angle, the beam width a hair inside it, and the
//!   host's curve as the spot's texture, which Mitsuba maps over the cone
//!   (`tan(angle) / tan(cutoff)` from its centre).
//! - *Projector mapping.* The host's projector gives `I tex(uv) / d^2` with `uv` the point's
//!   position on the image plane at unit depth; Mitsuba's `projector` gives
//!   `pi scale tex(uv) d / z^3`. The texture is written multiplied by `cos^3` of the angle off
//!   the axis (`z^3 / d^3`) with `scale = I / pi`, which makes the two equal.
//! - *Range window.* The host fades each local light to 0 at its range
//!   (`(1 - (d / range)^4)^2`); Mitsuba's emitters have no range. Each local light's position
//!   and range are written in a comment before its emitter (`<!-- range_window light_<n>
//!   position="x, y, z" range_m="r" -->`), and `tools/mitsuba_compare.py` multiplies that
//!   light's render by the window at the surface each pixel sees (its `position` AOV): exact
//!   for the direct light of `max_depth` 2 on opaque surfaces, which is all the host computes
//!   for a local light there.
//!
//! Every file is written new and renamed into place ([`crate::atomic_file`]); the files in
//! `DIR` are [`file_names`] (and `<scene>_density.vol` when the frame had particle fog: one left
//! by an earlier export is removed before the GPU starts, so the files always describe one frame).

pub mod exr;
mod xml;

use std::path::Path;

use glam::{Mat3, Vec3};

use crate::error::{RenderError, Result};
use crate::scene::{LightKind, Scene};

/// The frame to export besides the scene.
pub struct FrameExport<'a> {
    /// File stem, `<scene>`.
    pub stem: &'a str,
    /// The camera of the frame.
    pub camera: crate::scene::Camera,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// The frame's linear radiance, row-major from the top.
    pub hdr: &'a [[f32; 4]],
    /// The opaque surfaces alone (the host's passes only), as `hdr`.
    pub surfaces: &'a [[f32; 4]],
    /// The particle fog's transmittance from the camera to the opaque depth, per pixel.
    pub transmittance: &'a [f32],
    /// The particle fog as a medium, when the frame had one.
    pub medium: Option<FogMedium<'a>>,
}

/// The particle fog's medium: its extinction grid and phase.
pub struct FogMedium<'a> {
    /// Extinction, 1/m, as the march sees it.
    pub grid: &'a fog::density::Grid,
    /// Henyey-Greenstein asymmetry.
    pub anisotropy: f32,
    /// Single-scattering albedo (linear RGB).
    pub albedo: [f32; 3],
}

/// Side of the spot falloff and projector textures written, texels.
const LIGHT_TEXTURE_SIZE: u32 = 256;

/// Writes the frame's Mitsuba scene and images into `dir` (module docs).
pub fn write_scene(dir: &Path, scene: &Scene, frame: &FrameExport<'_>) -> Result<()> {
    let stem = frame.stem;
    let meshes = dir.join(format!("{stem}_meshes"));
    std::fs::create_dir_all(&meshes)
        .map_err(|e| RenderError::BadInput(format!("creating {}: {e}", meshes.display())))?;
    for (i, object) in scene.objects.iter().enumerate() {
        write_file(&meshes.join(format!("{i}.ply")), &ply(scene, object))?;
    }
    for (i, light) in scene.lights.iter().enumerate() {
        match &light.kind {
            LightKind::Point => {}
            LightKind::Spot { inner_deg, outer_deg, .. } => {
                let texels = spot_falloff(*inner_deg, *outer_deg);
                let n = LIGHT_TEXTURE_SIZE;
                let bytes = exr::encode(n, n, &[("R", &texels), ("G", &texels), ("B", &texels)]);
                write_file(&dir.join(format!("{stem}_spot_{i}.exr")), &bytes)?;
            }
            LightKind::Projector { texture, fov_deg, .. } => {
                let user = format!("projector {}", light.name);
                let img = crate::textures::load_named(scene, texture, &user, LIGHT_TEXTURE_SIZE)?;
                let [r, g, b] = projector_texture(&img, light.color, *fov_deg);
                let n = LIGHT_TEXTURE_SIZE;
                let bytes = exr::encode(n, n, &[("R", &r), ("G", &g), ("B", &b)]);
                write_file(&dir.join(format!("{stem}_projector_{i}.exr")), &bytes)?;
            }
        }
    }
    if let Some(m) = &frame.medium {
        let mut bytes = Vec::with_capacity(m.grid.values.len() * 4 + 48);
        fog::density::write_mitsuba_vol(m.grid, &mut bytes)
            .map_err(|e| RenderError::BadInput(format!("the density grid: {e}")))?;
        write_file(&dir.join(format!("{stem}_density.vol")), &bytes)?;
    }
    write_file(&dir.join(format!("{stem}.xml")), xml::scene_xml(scene, frame).as_bytes())?;
    let (w, h) = (frame.width, frame.height);
    let channel = |img: &[[f32; 4]], c: usize| img.iter().map(|p| p[c]).collect::<Vec<f32>>();
    let [r, g, b] = [0, 1, 2].map(|c| channel(frame.hdr, c));
    write_file(&dir.join(format!("{stem}_hdr.exr")), &exr::encode(w, h, &[("R", &r), ("G", &g), ("B", &b)]))?;
    let added = |c: usize| -> Vec<f32> {
        frame
            .hdr
            .iter()
            .zip(frame.surfaces)
            .zip(frame.transmittance)
            .map(|((full, surface), t)| full[c] - surface[c] * t)
            .collect()
    };
    let [r, g, b] = [0, 1, 2].map(added);
    let fog_channels = [("R", &r[..]), ("G", &g[..]), ("B", &b[..]), ("A", frame.transmittance)];
    write_file(&dir.join(format!("{stem}_fog.exr")), &exr::encode(w, h, &fog_channels))
}

/// Writes `bytes` as the new file `path`: the one place the export writes a file.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    crate::atomic_file::write_atomically(path, bytes)
}

/// The files the export of `scene` as `stem` always writes into its folder (besides the meshes'
/// folder and the density volume, written only with particle fog).
pub fn file_names(scene: &Scene, stem: &str) -> Vec<String> {
    let mut names = vec![format!("{stem}.xml"), format!("{stem}_hdr.exr"), format!("{stem}_fog.exr")];
    for (i, light) in scene.lights.iter().enumerate() {
        match light.kind {
            LightKind::Point => {}
            LightKind::Spot { .. } => names.push(format!("{stem}_spot_{i}.exr")),
            LightKind::Projector { .. } => names.push(format!("{stem}_projector_{i}.exr")),
        }
    }
    names
}

/// Whether `name` is a file an export as `stem` writes (of this scene or, with other lights, of an
/// earlier one): what may be removed as stale.
pub fn is_export_file(stem: &str, name: &str) -> bool {
    if name == format!("{stem}.xml") {
        return true;
    }
    let Some(rest) = name.strip_prefix(stem).and_then(|r| r.strip_prefix('_')) else { return false };
    let numbered = |prefix: &str| {
        rest.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix(".exr"))
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    matches!(rest, "hdr.exr" | "fog.exr" | "density.vol") || numbered("spot_") || numbered("projector_")
}

/// The host's ambient and emission at a surface of `albedo` and `emissive` facing `n` (module
/// docs): what `host.lighting` adds whatever the lights.
pub fn host_terms(scene: &Scene, albedo: Vec3, emissive: Vec3, n: Vec3) -> Vec3 {
    let a = &scene.ambient;
    albedo * a.ground.lerp(a.sky, (n.z * 0.5 + 0.5).clamp(0.0, 1.0)) + emissive
}

/// `object` as a binary PLY in world space: positions, unit normals and, as the vertex colour,
/// the host's ambient and emission there ([`host_terms`]).
fn ply(scene: &Scene, object: &crate::scene::Object) -> Vec<u8> {
    let mesh = crate::scene::mesh_for(&object.shape);
    let m = object.transform.world_from_object();
    let normal_m = Mat3::from_mat4(m).inverse().transpose();
    let header = format!(
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\nproperty float y\n\
         property float z\nproperty float nx\nproperty float ny\nproperty float nz\nproperty float r\n\
         property float g\nproperty float b\nelement face {}\nproperty list uchar int vertex_indices\n\
         end_header\n",
        mesh.positions.len(),
        mesh.indices.len() / 3
    );
    let mut out = header.into_bytes();
    for (p, n) in mesh.positions.iter().zip(&mesh.normals) {
        let p = m.transform_point3(Vec3::from_array(*p));
        let n = (normal_m * Vec3::from_array(*n)).normalize_or_zero();
        let c = host_terms(scene, object.albedo, object.emissive, n);
        for v in [p.x, p.y, p.z, n.x, n.y, n.z, c.x, c.y, c.z] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    for tri in mesh.indices.chunks_exact(3) {
        out.push(3);
        for &i in tri {
            out.extend_from_slice(&(i as i32).to_le_bytes());
        }
    }
    out
}

/// Tangent of the angle off a cone's axis at texel centre `(x, y)` of a texture spanning
/// `tan_edge` at its edges' middles, as Mitsuba's spot and projector map them.
fn texel_tan(x: u32, y: u32, tan_edge: f32) -> (f32, f32) {
    let n = LIGHT_TEXTURE_SIZE as f32;
    let u = ((x as f32 + 0.5) / n * 2.0 - 1.0) * tan_edge;
    let v = ((y as f32 + 0.5) / n * 2.0 - 1.0) * tan_edge;
    (u, v)
}

/// The host's spot falloff over Mitsuba's spot texture (cut-off at `outer_deg`), row-major.
fn spot_falloff(inner_deg: f32, outer_deg: f32) -> Vec<f32> {
    let (cos_outer, cos_inner) = (outer_deg.to_radians().cos(), inner_deg.to_radians().cos());
    let tan_edge = outer_deg.to_radians().tan();
    let n = LIGHT_TEXTURE_SIZE;
    (0..n * n)
        .map(|i| {
            let (a, b) = texel_tan(i % n, i / n, tan_edge);
            let cos = 1.0 / (1.0 + a * a + b * b).sqrt();
            smoothstep(cos_outer, cos_inner, cos)
        })
        .collect()
}

/// GLSL's `smoothstep` (`lo == hi` a step at `lo`).
fn smoothstep(lo: f32, hi: f32, x: f32) -> f32 {
    if hi <= lo {
        return if x >= lo { 1.0 } else { 0.0 };
    }
    let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// A projector's texture for Mitsuba: linear colour times the light's `color` times `cos^3` of
/// the angle off the axis (module docs), row-major from the top as the host reads it.
fn projector_texture(img: &image::RgbaImage, color: Vec3, fov_deg: f32) -> [Vec<f32>; 3] {
    let tan_edge = (fov_deg * 0.5).to_radians().tan();
    let n = LIGHT_TEXTURE_SIZE;
    let mut out = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..n * n {
        let (x, y) = (i % n, i / n);
        let (a, b) = texel_tan(x, y, tan_edge);
        let cos3 = (1.0 + a * a + b * b).powf(-1.5);
        let px = img.get_pixel(x.min(img.width() - 1), y.min(img.height() - 1));
        for c in 0..3 {
            out[c].push(crate::textures::srgb_to_linear(f32::from(px[c]) / 255.0) * color[c] * cos3);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_export_removes_only_its_own_kinds_of_file() {
        for name in [
            "fog.xml",
            "fog_hdr.exr",
            "fog_fog.exr",
            "fog_density.vol",
            "fog_spot_3.exr",
            "fog_projector_12.exr",
        ] {
            assert!(is_export_file("fog", name), "{name}");
        }
        // Another scene's files, a user's, and names that only look alike.
        for name in [
            "fog_machine_hdr.exr",
            "fog_notes.txt",
            "fog_spot_.exr",
            "fog_spot_x.exr",
            "fog.xml.bak",
            "fogg.xml",
        ] {
            assert!(!is_export_file("fog", name), "{name}");
        }
    }

    #[test]
    fn the_spot_texture_is_the_hosts_falloff_by_angle() {
        let texels = spot_falloff(12.0, 20.0);
        let n = LIGHT_TEXTURE_SIZE as usize;
        // The middle is inside the core; a corner (beyond the cut-off) is dark.
        assert_eq!(texels[n / 2 * n + n / 2], 1.0);
        assert_eq!(texels[0], 0.0);
        // Along the middle row, the texel at 16 degrees off the axis: smoothstep of its cosine.
        let x = ((16f32.to_radians().tan() / 20f32.to_radians().tan() + 1.0) * 0.5 * n as f32) as usize;
        let (a, _) = texel_tan(x as u32, n as u32 / 2, 20f32.to_radians().tan());
        let angle = a.atan().to_degrees();
        let t = (angle.to_radians().cos() - 20f32.to_radians().cos())
            / (12f32.to_radians().cos() - 20f32.to_radians().cos());
        let expected = t * t * (3.0 - 2.0 * t);
        assert!((texels[n / 2 * n + x] - expected).abs() < 2e-3, "{} {expected}", texels[n / 2 * n + x]);
        assert!((angle - 16.0).abs() < 0.2, "{angle}");
    }

    #[test]
    fn projector_texels_carry_cos_cubed_off_the_axis() {
        let img = image::RgbaImage::from_pixel(4, 4, image::Rgba([255; 4]));
        let [r, _, _] = projector_texture(&img, Vec3::ONE, 90.0);
        // A corner texel: tan = (1 - 1/256) on both axes.
        let t = 1.0 - 1.0 / LIGHT_TEXTURE_SIZE as f32;
        let expected = (1.0 + 2.0 * t * t).powf(-1.5);
        assert!((r[0] - expected).abs() < 1e-5, "{} {expected}", r[0]);
    }
}
