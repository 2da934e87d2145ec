//! The text of `<scene>.xml` (module docs of [`super`]).

use std::fmt::Write as _;

use glam::Vec3;

use super::FrameExport;
use crate::scene::{LightKind, Scene};

/// Mitsuba's spot `beam_width` as a fraction of its `cutoff_angle`: just inside it, so that the
/// texture carries the whole falloff.
const BEAM_WIDTH_OF_CUTOFF: f32 = 0.9999;

fn v3(v: Vec3) -> String {
    format!("{}, {}, {}", v.x, v.y, v.z)
}

/// A look-at transform from `from` along `dir` with an up hint `up` (any vector off `dir`).
fn lookat(from: Vec3, dir: Vec3, up: Vec3) -> String {
    let up = if dir.normalize_or_zero().cross(up.normalize_or_zero()).length() < 1e-3 {
        dir.any_orthonormal_vector()
    } else {
        up
    };
    format!(
        "<transform name=\"to_world\"><lookat origin=\"{}\" target=\"{}\" up=\"{}\"/></transform>",
        v3(from),
        v3(from + dir),
        v3(up)
    )
}

/// The whole scene file.
pub fn scene_xml(scene: &Scene, frame: &FrameExport<'_>) -> String {
    let stem = frame.stem;
    let mut x = String::from("<scene version=\"3.0.0\">\n");
    x += "  <default name=\"spp\" value=\"64\"/>\n  <default name=\"max_depth\" value=\"2\"/>\n";
    x += "  <integrator type=\"volpath\"><integer name=\"max_depth\" value=\"$max_depth\"/></integrator>\n";
    let cam = &frame.camera;
    let medium_box = frame.medium.as_ref().map(|m| m.grid.bounds());
    let camera_inside =
        medium_box.is_some_and(|(lo, hi)| cam.position.cmpge(lo).all() && cam.position.cmple(hi).all());
    let _ = writeln!(
        x,
        "  <sensor type=\"perspective\">\n    <float name=\"fov\" value=\"{}\"/><string name=\"fov_axis\" \
         value=\"y\"/>\n    <float name=\"near_clip\" value=\"{}\"/><float name=\"far_clip\" value=\"{}\"/>\n    \
         <transform name=\"to_world\"><lookat origin=\"{}\" target=\"{}\" up=\"0, 0, 1\"/></transform>\n    \
         <sampler type=\"independent\"><integer name=\"sample_count\" value=\"$spp\"/></sampler>\n    \
         <film type=\"hdrfilm\"><integer name=\"width\" value=\"{}\"/><integer name=\"height\" value=\"{}\"/>\
         <string name=\"pixel_format\" value=\"rgb\"/><rfilter type=\"box\"/></film>{}\n  </sensor>",
        cam.fov_y_deg,
        crate::view::CAMERA_NEAR_M,
        crate::view::CAMERA_FAR_M,
        v3(cam.position),
        v3(cam.target),
        frame.width,
        frame.height,
        if camera_inside { "\n    <ref id=\"particle_fog\"/>" } else { "" },
    );
    let sun = &scene.sun;
    let _ = writeln!(
        x,
        "  <emitter type=\"directional\" id=\"sun\"><vector name=\"direction\" value=\"{}\"/>\
         <rgb name=\"irradiance\" value=\"{}\"/></emitter>",
        v3(-sun.direction),
        v3(sun.color * sun.illuminance)
    );
    for (i, l) in scene.lights.iter().enumerate() {
        let intensity = v3(l.color * l.intensity);
        // Mitsuba's emitters have no range: the comparison script applies the host's window.
        let _ = writeln!(
            x,
            "  <!-- range_window light_{i} position=\"{}\" range_m=\"{}\" -->",
            v3(l.position),
            l.range
        );
        let _ = match &l.kind {
            LightKind::Point => writeln!(
                x,
                "  <emitter type=\"point\" id=\"light_{i}\"><point name=\"position\" value=\"{}\"/>\
                 <rgb name=\"intensity\" value=\"{intensity}\"/></emitter>",
                v3(l.position)
            ),
            LightKind::Spot { direction, outer_deg, .. } => writeln!(
                x,
                "  <emitter type=\"spot\" id=\"light_{i}\">{}<rgb name=\"intensity\" value=\"{intensity}\"/>\
                 <float name=\"cutoff_angle\" value=\"{outer_deg}\"/><float name=\"beam_width\" value=\"{}\"/>\
                 <texture type=\"bitmap\" name=\"texture\"><string name=\"filename\" value=\"{stem}_spot_{i}.exr\"/>\
                 <string name=\"wrap_mode\" value=\"clamp\"/><boolean name=\"raw\" value=\"true\"/></texture></emitter>",
                lookat(l.position, *direction, Vec3::Z),
                outer_deg * BEAM_WIDTH_OF_CUTOFF
            ),
            LightKind::Projector { direction, up, fov_deg, .. } => writeln!(
                x,
                "  <emitter type=\"projector\" id=\"light_{i}\">{}<float name=\"fov\" value=\"{fov_deg}\"/>\
                 <float name=\"scale\" value=\"{}\"/>\
                 <texture type=\"bitmap\" name=\"irradiance\"><string name=\"filename\" value=\"{stem}_projector_{i}.exr\"/>\
                 <string name=\"wrap_mode\" value=\"clamp\"/><boolean name=\"raw\" value=\"true\"/></texture></emitter>",
                lookat(l.position, *direction, *up),
                l.intensity / std::f32::consts::PI
            ),
        };
    }
    for (i, o) in scene.objects.iter().enumerate() {
        let _ = writeln!(
            x,
            "  <shape type=\"ply\" id=\"object_{i}\"><string name=\"filename\" value=\"{stem}_meshes/{i}.ply\"/>\
             <bsdf type=\"twosided\"><bsdf type=\"diffuse\"><rgb name=\"reflectance\" value=\"{}\"/></bsdf></bsdf>\
             <emitter type=\"area\" id=\"host_terms_{i}\"><texture type=\"mesh_attribute\" name=\"radiance\">\
             <string name=\"name\" value=\"vertex_color\"/></texture></emitter></shape>",
            v3(o.albedo)
        );
    }
    if let (Some(m), Some((lo, hi))) = (&frame.medium, medium_box) {
        let (centre, half) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
        let _ = writeln!(
            x,
            "  <medium type=\"heterogeneous\" id=\"particle_fog\">\n    <volume type=\"gridvolume\" name=\"sigma_t\">\
             <string name=\"filename\" value=\"{stem}_density.vol\"/><transform name=\"to_world\">\
             <scale value=\"{}\"/><translate value=\"{}\"/></transform></volume>\n    \
             <rgb name=\"albedo\" value=\"{}\"/><float name=\"scale\" value=\"1\"/>\n    \
             <phase type=\"hg\"><float name=\"g\" value=\"{}\"/></phase>\n  </medium>\n  \
             <shape type=\"cube\" id=\"particle_fog_bounds\"><bsdf type=\"null\"/><ref name=\"interior\" id=\"particle_fog\"/>\
             <transform name=\"to_world\"><scale value=\"{}\"/><translate value=\"{}\"/></transform></shape>",
            v3(hi - lo),
            v3(lo),
            v3(Vec3::from_array(m.albedo)),
            m.anisotropy,
            v3(half),
            v3(centre)
        );
    }
    x += "</scene>\n";
    x
}
