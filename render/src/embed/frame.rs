//! What a viewer hands the context each frame (its images with their states, its sun, shadow
//! maps and lights), checked before anything is recorded, and the lighting buffers the fog passes
//! bind (the `lighting.glsl` bindings 0..5) filled from it.

use ash::vk;
use glam::{Mat4, Vec3};
use settings::Settings;

use super::{bad, HDR_FORMATS};
use crate::error::Result;
use crate::fog_gpu::froxel::FROXEL_FORMAT;
use crate::gpu_types::{FogUniform, FrameUniform, GpuLight, GpuObject, ShadowView};
use crate::passes::brick_march::FroxelInputs;
use crate::passes::embed_depth::{forward_projection, DepthPush};
use crate::passes::opaque::LightInputs;
use crate::vk::context::Gpu;
use crate::vk::import::{HostImageDesc, HostImageState};
use crate::vk::recorder::Recorder;
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::world::{KIND_POINT, KIND_PROJECTOR, KIND_SPOT, NO_SHADOW};

/// Local lights a frame takes.
pub const MAX_LIGHTS: usize = 256;
/// Shadow-map layers a frame takes (sun cascades and lights' layers together).
pub const MAX_SHADOW_LAYERS: usize = 64;
/// Sun cascades at most.
pub const MAX_CASCADES: u32 = 4;
/// The fog passes' far plane when the viewer's is farther or infinite, m: the particle fog fades
/// out well before it (`RenderVKParticleFogRange`).
pub const FOG_FAR_M: f32 = 4096.0;

/// How the viewer's depth buffer encodes distance.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DepthConvention {
    /// Reversed Z: 1 at the near plane, 0 at the far (or at infinity).
    pub reversed: bool,
    /// The far plane is at infinity ([`super::Camera::far_m`] may be `f32::INFINITY`).
    pub infinite_far: bool,
}

/// One of the viewer's images for one frame.
#[derive(Clone, Copy, Debug)]
pub struct ViewerImage {
    /// The image.
    pub image: vk::Image,
    /// A view of all its layers (2D, or 2D array for shadow maps and projector textures), or
    /// null to have one made (not for depth-stencil formats: give a depth-only view).
    pub view: vk::ImageView,
    /// Its format.
    pub format: vk::Format,
    /// Its size, texels.
    pub extent: (u32, u32),
    /// Its array layers.
    pub layers: u32,
    /// The usages it was created with.
    pub usage: vk::ImageUsageFlags,
    /// The state the viewer leaves it in before the fog's passes.
    pub entry: HostImageState,
    /// The state to leave it in for the viewer's work after them.
    pub exit: HostImageState,
}

/// The sun.
#[derive(Clone, Copy, Debug)]
pub struct Sun {
    /// Unit vector toward the sun.
    pub to_sun: Vec3,
    /// Colour (linear).
    pub color: Vec3,
    /// Illuminance (the HDR target's units).
    pub illuminance: f32,
}

/// One layer of the viewer's shadow maps.
#[derive(Clone, Copy, Debug)]
pub struct ShadowLayer {
    /// World to the layer's clip space (depth 0..1, forward).
    pub clip_from_world: Mat4,
    /// An orthographic view (sun cascades).
    pub ortho: bool,
}

/// The viewer's shadow maps: one depth 2D array, the sun's cascades first, then any light's.
#[derive(Clone, Copy, Debug)]
pub struct ShadowMaps<'a> {
    /// The depth array (sampled with a LESS_OR_EQUAL compare).
    pub image: ViewerImage,
    /// Each layer's view.
    pub layers: &'a [ShadowLayer],
    /// The sun's cascades: layers `0 .. cascades` (0: the sun casts no shadow).
    pub cascades: u32,
}

/// A local light's kind.
#[derive(Clone, Copy, Debug)]
pub enum LightKind {
    /// A point light.
    Point,
    /// A spot light along `direction`, full inside `inner_deg` and dark outside `outer_deg`
    /// (half-angles).
    Spot {
        /// Unit direction.
        direction: Vec3,
        /// Inner half-angle, degrees.
        inner_deg: f32,
        /// Outer half-angle, degrees.
        outer_deg: f32,
    },
    /// A projector (the viewer's projected-texture light) along `direction` with `up`, `fov_deg`
    /// wide, projecting layer `texture_layer` of the projector textures.
    Projector {
        /// Unit direction.
        direction: Vec3,
        /// Unit up, across `direction`.
        up: Vec3,
        /// Full field of view, degrees.
        fov_deg: f32,
        /// Layer of [`FrameResources::projectors`].
        texture_layer: u32,
    },
}

/// A local light.
#[derive(Clone, Copy, Debug)]
pub struct Light {
    /// Position, m.
    pub position: Vec3,
    /// Range, m.
    pub range_m: f32,
    /// Colour (linear).
    pub color: Vec3,
    /// Intensity (the HDR target's units at 1 m).
    pub intensity: f32,
    /// Point, spot or projector.
    pub kind: LightKind,
    /// Its first shadow layer (a point light's six cube faces +X -X +Y -Y +Z -Z from there), or
    /// none.
    pub shadow_layer: Option<u32>,
}

/// The viewer's froxel fog, integrated front to back, for the particle fog to composite with by
/// depth: froxel fog in front of the cloud dims it and adds to it, the cloud dims the froxel fog
/// behind it. The viewer applies it to the HDR target before [`super::FogContext::record`], as it
/// would without the particle fog.
#[derive(Clone, Copy, Debug)]
pub struct FroxelVolume {
    /// The integrated volume: a 3D image (`R16G16B16A16_SFLOAT`, sampled usage; a 3D view, or null
    /// to have one made) whose `extent` spans the screen as the HDR target does (x right, y down)
    /// and whose `layers` are its slices, at least 2. Texel (x, y, s) holds the in-scattered light
    /// (rgb, the HDR target's units) and the transmittance (a) from the camera to the far edge of
    /// slice s along that pixel's ray.
    pub image: ViewerImage,
    /// Slice s ends at view depth `near_m * (far_m / near_m)^((s + 1) / slices)` (exponential;
    /// slice 0 reaches back to the camera), m.
    pub near_m: f32,
    /// The far edge of the last slice, m.
    pub far_m: f32,
    /// The Henyey-Greenstein asymmetry g of the viewer's fog (-1..1): the particle fog scatters
    /// with it too.
    pub anisotropy: f32,
}

/// The viewer's resources for one frame.
#[derive(Clone, Copy, Debug)]
pub struct FrameResources<'a> {
    /// The depth buffer (a depth format, sampled usage), at the render size.
    pub depth: ViewerImage,
    /// The HDR target composited into (one of [`HDR_FORMATS`], storage usage), at the render size.
    pub hdr: ViewerImage,
    /// The sun.
    pub sun: Sun,
    /// Ambient radiance from the sky and from the ground.
    pub ambient: [Vec3; 2],
    /// The shadow maps, if any.
    pub shadows: Option<ShadowMaps<'a>>,
    /// The local lights.
    pub lights: &'a [Light],
    /// The projector textures (a 2D array, sampled usage), when a light is a projector.
    pub projectors: Option<ViewerImage>,
    /// The viewer's froxel fog, when on.
    pub froxels: Option<FroxelVolume>,
}

fn is_depth(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::D16_UNORM
            | vk::Format::D32_SFLOAT
            | vk::Format::X8_D24_UNORM_PACK32
            | vk::Format::D16_UNORM_S8_UINT
            | vk::Format::D24_UNORM_S8_UINT
            | vk::Format::D32_SFLOAT_S8_UINT
    )
}

fn has_stencil(format: vk::Format) -> bool {
    matches!(
        format,
        vk::Format::D16_UNORM_S8_UINT | vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT
    )
}

fn check_image(img: &ViewerImage, what: &str, usage: vk::ImageUsageFlags) -> Result<()> {
    if img.image == vk::Image::null() || img.extent.0 == 0 || img.extent.1 == 0 || img.layers == 0 {
        return Err(bad(format!("{what}: a null image or one of no texels")));
    }
    if !img.usage.contains(usage) {
        return Err(bad(format!("{what}: needs {usage:?} usage, has {:?}", img.usage)));
    }
    if has_stencil(img.format) && img.view == vk::ImageView::null() {
        return Err(bad(format!("{what}: a depth-stencil image needs a depth-only view")));
    }
    Ok(())
}

impl FrameResources<'_> {
    /// Checks everything the frame reads against the render `size`.
    pub(super) fn check(&self, size: (u32, u32)) -> Result<()> {
        check_image(&self.depth, "depth", vk::ImageUsageFlags::SAMPLED)?;
        check_image(&self.hdr, "HDR target", vk::ImageUsageFlags::STORAGE)?;
        if !is_depth(self.depth.format) {
            return Err(bad(format!("depth: {:?} is not a depth format", self.depth.format)));
        }
        if !HDR_FORMATS.contains(&self.hdr.format) {
            return Err(bad(format!(
                "the particle fog cannot composite into {:?}: it needs one of {HDR_FORMATS:?}",
                self.hdr.format
            )));
        }
        for (img, what) in [(&self.depth, "depth"), (&self.hdr, "HDR target")] {
            if img.layers != 1 {
                return Err(bad(format!("{what}: one layer, not {}", img.layers)));
            }
            if img.extent != size {
                return Err(bad(format!(
                    "{what} is {:?}, the render size {size:?} (resize first)",
                    img.extent
                )));
            }
        }
        let s = &self.sun;
        if !(s.to_sun.is_finite() && s.color.is_finite() && s.illuminance.is_finite()) {
            return Err(bad("the sun must be finite".to_owned()));
        }
        if !self.ambient.iter().all(|a| a.is_finite()) {
            return Err(bad("the ambient radiance must be finite".to_owned()));
        }
        let layers = match &self.shadows {
            Some(sh) => {
                check_image(&sh.image, "shadow maps", vk::ImageUsageFlags::SAMPLED)?;
                if !is_depth(sh.image.format) {
                    return Err(bad(format!("shadow maps: {:?} is not a depth format", sh.image.format)));
                }
                let n = sh.layers.len();
                if n > MAX_SHADOW_LAYERS
                    || n as u32 > sh.image.layers
                    || sh.cascades > MAX_CASCADES.min(n as u32)
                {
                    return Err(bad(format!(
                        "shadow maps: {n} views for {} layers, {} cascades (at most {MAX_SHADOW_LAYERS} \
                         layers and {MAX_CASCADES} cascades)",
                        sh.image.layers, sh.cascades
                    )));
                }
                if !sh.layers.iter().all(|l| l.clip_from_world.is_finite()) {
                    return Err(bad("shadow maps: a view matrix is not finite".to_owned()));
                }
                n as u32
            }
            None => 0,
        };
        if let Some(p) = &self.projectors {
            check_image(p, "projector textures", vk::ImageUsageFlags::SAMPLED)?;
        }
        if let Some(f) = &self.froxels {
            check_froxels(f)?;
        }
        if self.lights.len() > MAX_LIGHTS {
            return Err(bad(format!("{} lights: at most {MAX_LIGHTS}", self.lights.len())));
        }
        for (i, l) in self.lights.iter().enumerate() {
            check_light(i, l, layers, self.projectors.map_or(0, |p| p.layers))?;
        }
        Ok(())
    }
}

fn check_froxels(f: &FroxelVolume) -> Result<()> {
    let img = &f.image;
    if img.image == vk::Image::null() || img.extent.0 == 0 || img.extent.1 == 0 || img.layers < 2 {
        return Err(bad("froxel volume: a null image, or fewer than 2 slices".to_owned()));
    }
    if !img.usage.contains(vk::ImageUsageFlags::SAMPLED) {
        return Err(bad(format!("froxel volume: needs SAMPLED usage, has {:?}", img.usage)));
    }
    if img.format != FROXEL_FORMAT {
        return Err(bad(format!("froxel volume: {:?}, not {FROXEL_FORMAT:?}", img.format)));
    }
    let slices = f.near_m.is_finite() && f.near_m > 0.0 && f.far_m.is_finite() && f.far_m > f.near_m;
    if !(slices && f.anisotropy.is_finite() && f.anisotropy.abs() < 1.0) {
        return Err(bad(format!(
            "froxel volume: near {} and far {} m (0 < near < far, finite), anisotropy {} (-1..1)",
            f.near_m, f.far_m, f.anisotropy
        )));
    }
    Ok(())
}

fn check_light(i: usize, l: &Light, shadow_layers: u32, projector_layers: u32) -> Result<()> {
    let finite = l.position.is_finite() && l.color.is_finite() && l.intensity.is_finite();
    if !(finite && l.range_m.is_finite() && l.range_m > 0.0) {
        return Err(bad(format!("light {i}: position, colour and intensity must be finite, range above 0")));
    }
    let faces = if matches!(l.kind, LightKind::Point) { 6 } else { 1 };
    if let Some(first) = l.shadow_layer {
        if u64::from(first) + faces > u64::from(shadow_layers) {
            return Err(bad(format!("light {i}: shadow layers {first}.. past the {shadow_layers} given")));
        }
    }
    match l.kind {
        LightKind::Point => Ok(()),
        LightKind::Spot { direction, inner_deg, outer_deg } => {
            let ok = direction.is_normalized()
                && (0.0..=90.0).contains(&outer_deg)
                && (0.0..=outer_deg).contains(&inner_deg);
            ok.then_some(()).ok_or_else(|| {
                bad(format!("light {i}: a spot needs a unit direction and 0 <= inner <= outer <= 90 degrees"))
            })
        }
        LightKind::Projector { direction, up, fov_deg, texture_layer } => {
            if !(direction.is_normalized() && up.is_normalized() && fov_deg > 0.0 && fov_deg < 180.0) {
                return Err(bad(format!(
                    "light {i}: a projector needs unit direction and up, 0 < fov < 180 degrees"
                )));
            }
            if texture_layer >= projector_layers {
                return Err(bad(format!(
                    "light {i}: projector texture layer {texture_layer} of {projector_layers} given"
                )));
            }
            Ok(())
        }
    }
}

/// The frame constants' camera part, from the viewer's camera.
pub(super) struct FrameInputs {
    /// The camera's position, m.
    pub camera_pos: Vec3,
    /// The camera's world axes: right, up, forward.
    pub axes: [Vec3; 3],
    /// The projection's tan(fov_y / 2) and aspect (width over height).
    pub tan_aspect: (f32, f32),
    /// World to the passes' clip space (the viewer's projection with a forward finite z).
    pub clip_from_world: Mat4,
    /// The rewrite of the viewer's depth.
    pub depth_push: DepthPush,
    /// The settings of the frame.
    pub settings: Settings,
}

impl FrameInputs {
    /// Checks `cam` against the depth convention `conv`.
    pub fn new(cam: &super::Camera, conv: DepthConvention, settings: &Settings) -> Result<FrameInputs> {
        let p = cam.clip_from_view;
        let w_row = p.row(3);
        if (w_row - glam::Vec4::new(0.0, 0.0, -1.0, 0.0)).abs().max_element() > 1e-5 {
            return Err(bad(format!(
                "the projection's w row is {w_row}: a perspective with clip w = -view z is needed"
            )));
        }
        if cam.far_m.is_infinite() && !conv.infinite_far {
            return Err(bad("an infinite far plane for a context made for a finite one".to_owned()));
        }
        let near_depth = {
            let c = p * glam::Vec4::new(0.0, 0.0, -cam.near_m, 1.0);
            c.z / c.w
        };
        let want = if conv.reversed { 1.0 } else { 0.0 };
        if (near_depth - want).abs() > 1e-3 {
            return Err(bad(format!(
                "the projection puts the near plane at depth {near_depth}; the context was made for {} Z",
                if conv.reversed { "reversed" } else { "forward" }
            )));
        }
        let far = cam.far_m.min(FOG_FAR_M).max(cam.near_m * 2.0);
        let sky = if conv.reversed { 0.0 } else { 1.0 };
        let world_from_view = cam.view_from_world.inverse();
        let axes = [
            world_from_view.transform_vector3(Vec3::X).normalize_or_zero(),
            world_from_view.transform_vector3(Vec3::Y).normalize_or_zero(),
            world_from_view.transform_vector3(-Vec3::Z).normalize_or_zero(),
        ];
        let tan_aspect = (1.0 / p.y_axis.y.abs().max(1e-6), p.y_axis.y.abs() / p.x_axis.x.abs().max(1e-6));
        Ok(FrameInputs {
            camera_pos: world_from_view.transform_point3(Vec3::ZERO),
            axes,
            tan_aspect,
            clip_from_world: forward_projection(p, cam.near_m, far) * cam.view_from_world,
            depth_push: DepthPush::new(p, sky, (cam.near_m, far)),
            settings: settings.clone(),
        })
    }
}

/// The viewer's images imported for one frame.
pub(super) struct Imported {
    pub depth: Image,
    pub hdr: Image,
    pub shadows: Option<Image>,
    pub projectors: Option<Image>,
    pub froxels: Option<Image>,
}

impl Imported {
    /// Hands every image back in the state `res` asks.
    pub fn hand_back(&self, rec: &mut Recorder<'_>, res: &FrameResources<'_>) {
        rec.hand_back(&self.depth, res.depth.exit);
        rec.hand_back(&self.hdr, res.hdr.exit);
        if let (Some(img), Some(sh)) = (&self.shadows, &res.shadows) {
            rec.hand_back(img, sh.image.exit);
        }
        if let (Some(img), Some(p)) = (&self.projectors, &res.projectors) {
            rec.hand_back(img, p.exit);
        }
        if let (Some(img), Some(f)) = (&self.froxels, &res.froxels) {
            rec.hand_back(img, f.image.exit);
        }
    }
}

/// Imports the images of `res`, each entered in its entry state.
///
/// # Safety
/// As [`Gpu::import_image`], for every image of `res`.
pub(super) unsafe fn import(gpu: &Gpu, res: &FrameResources<'_>) -> Result<Imported> {
    let one = |img: &ViewerImage, name: &str, array: bool, volume: bool| -> Result<Image> {
        let desc = HostImageDesc {
            name,
            raw: img.image,
            view: img.view,
            format: img.format,
            extent: vk::Extent2D { width: img.extent.0, height: img.extent.1 },
            depth: if volume { img.layers } else { 1 },
            layers: if volume { 1 } else { img.layers },
            array,
            usage: img.usage,
        };
        // SAFETY: the caller's contract.
        let image = unsafe { gpu.import_image(&desc) }?;
        image.enter(img.entry);
        Ok(image)
    };
    Ok(Imported {
        depth: one(&res.depth, "viewer.depth", false, false)?,
        hdr: one(&res.hdr, "viewer.hdr", false, false)?,
        shadows: res
            .shadows
            .as_ref()
            .map(|s| one(&s.image, "viewer.shadow_maps", true, false))
            .transpose()?,
        projectors: res.projectors.as_ref().map(|p| one(p, "viewer.projectors", true, false)).transpose()?,
        froxels: res.froxels.as_ref().map(|f| one(&f.image, "viewer.froxels", false, true)).transpose()?,
    })
}

/// The lighting inputs of the fog passes, filled from the viewer's each frame.
pub(super) struct LightingBuffers {
    frame: Buffer,
    objects: Buffer,
    lights: Buffer,
    shadow_views: Buffer,
    /// The constants of the viewer's froxel volume (the march's `FogUniform`).
    froxel: Buffer,
    no_shadows: Image,
    no_projectors: Image,
}

impl LightingBuffers {
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let buffer = |name, size: usize, usage, location| {
            gpu.create_buffer(&BufferDesc { name, size: size as u64, usage, location })
        };
        use vk::BufferUsageFlags as B;
        let mut objects = buffer(
            "embed.objects",
            std::mem::size_of::<GpuObject>(),
            B::STORAGE_BUFFER,
            MemoryLocation::CpuToGpu,
        )?;
        objects.write(0, bytemuck::bytes_of(&GpuObject::default()));
        let image = |name, format| {
            gpu.create_image(&ImageDesc {
                name,
                kind: vk::ImageType::TYPE_2D,
                format,
                extent: vk::Extent3D { width: 1, height: 1, depth: 1 },
                layers: 1,
                array: true,
                mips: 1,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
            })
        };
        Ok(LightingBuffers {
            frame: buffer(
                "frame.constants",
                std::mem::size_of::<FrameUniform>(),
                B::UNIFORM_BUFFER,
                MemoryLocation::Staged,
            )?,
            objects,
            lights: buffer(
                "embed.lights",
                MAX_LIGHTS * std::mem::size_of::<GpuLight>(),
                B::STORAGE_BUFFER,
                MemoryLocation::Staged,
            )?,
            shadow_views: buffer(
                "world.shadow_views",
                MAX_SHADOW_LAYERS * std::mem::size_of::<ShadowView>(),
                B::STORAGE_BUFFER,
                MemoryLocation::Staged,
            )?,
            froxel: buffer(
                "embed.froxel_constants",
                std::mem::size_of::<FogUniform>(),
                B::UNIFORM_BUFFER,
                MemoryLocation::Staged,
            )?,
            no_shadows: image("embed.no_shadow_maps", vk::Format::D32_SFLOAT)?,
            no_projectors: image("embed.no_projectors", vk::Format::R8G8B8A8_UNORM)?,
        })
    }

    /// Writes the frame constants, lights and shadow views of this frame.
    pub fn write(
        &mut self,
        inputs: &FrameInputs,
        res: &FrameResources<'_>,
        size: (u32, u32),
        index: u32,
    ) -> Result<()> {
        let (w, h) = (size.0 as f32, size.1 as f32);
        let sun = &res.sun;
        let to_sun = sun.to_sun.try_normalize().unwrap_or(Vec3::Z);
        let (cascades, shadow_size) = res.shadows.as_ref().map_or((0, 1), |s| (s.cascades, s.image.extent.0));
        let constants = FrameUniform {
            clip_from_world: inputs.clip_from_world.to_cols_array_2d(),
            world_from_clip: inputs.clip_from_world.inverse().to_cols_array_2d(),
            camera_pos: inputs.camera_pos.extend(1.0).to_array(),
            sun_dir: to_sun.extend(sun.illuminance).to_array(),
            sun_color: sun.color.extend(if cascades > 0 { 1.0 } else { 0.0 }).to_array(),
            ambient_sky: res.ambient[0].extend(0.0).to_array(),
            ambient_ground: res.ambient[1].extend(0.0).to_array(),
            cascade_far: [f32::INFINITY; 4],
            screen: [w, h, 1.0 / w, 1.0 / h],
            counts: [res.lights.len() as u32, cascades, index, shadow_size],
        };
        self.frame.write(0, bytemuck::bytes_of(&constants));
        let lights: Vec<GpuLight> = res.lights.iter().map(gpu_light).collect();
        if !lights.is_empty() {
            self.lights.write(0, bytemuck::cast_slice(&lights));
        }
        if let Some(f) = &res.froxels {
            self.froxel.write(0, bytemuck::bytes_of(&froxel_uniform(inputs, f)));
        }
        if let Some(sh) = &res.shadows {
            let texel = 1.0 / sh.image.extent.0 as f32;
            let views: Vec<ShadowView> = sh
                .layers
                .iter()
                .map(|l| ShadowView {
                    clip_from_world: l.clip_from_world.to_cols_array_2d(),
                    params: [texel, 1.0, if l.ortho { 1.0 } else { 0.0 }, 0.0],
                })
                .collect();
            if !views.is_empty() {
                self.shadow_views.write(0, bytemuck::cast_slice(&views));
            }
        }
        Ok(())
    }

    /// The viewer's froxel fog of this frame's `imported` images, when it gave one.
    pub fn froxels<'r>(&'r self, imported: &'r Imported) -> Option<FroxelInputs<'r>> {
        imported.froxels.as_ref().map(|integrated| FroxelInputs { uniform: &self.froxel, integrated })
    }

    /// The bindings 0..5 for this frame's `imported` images.
    pub fn inputs<'r>(&'r self, imported: &'r Imported) -> LightInputs<'r> {
        LightInputs {
            frame: &self.frame,
            objects: &self.objects,
            lights: &self.lights,
            shadow_views: &self.shadow_views,
            shadow_atlas: imported.shadows.as_ref().unwrap_or(&self.no_shadows),
            projector_tex: imported.projectors.as_ref().unwrap_or(&self.no_projectors),
        }
    }
}

/// The march's froxel constants for the viewer's volume `f` seen by the camera of `inputs` (what
/// `froxel_common.glsl` reads: the axes, the grid, the slices, the phase; nothing of a froxel
/// fog's own passes).
fn froxel_uniform(inputs: &FrameInputs, f: &FroxelVolume) -> FogUniform {
    let [right, up, forward] = inputs.axes;
    let (tan, aspect) = inputs.tan_aspect;
    let (w, h, slices) = (f.image.extent.0 as f32, f.image.extent.1 as f32, f.image.layers as f32);
    FogUniform {
        forward_tan: forward.extend(tan).to_array(),
        right_aspect: right.extend(aspect).to_array(),
        up: up.extend(0.0).to_array(),
        grid: [w, h, slices, 0.0],
        slices: [f.near_m, f.far_m, (f.far_m / f.near_m).ln(), 0.0],
        height_fog: [0.0, 0.0, 0.0, f.anisotropy],
        ..FogUniform::default()
    }
}

fn gpu_light(l: &Light) -> GpuLight {
    let (kind, dir, up, cos_outer, cos_inner, tan_half, tex) = match l.kind {
        LightKind::Point => (KIND_POINT, Vec3::Z, Vec3::Y, -1.0, -1.0, 1.0, 0),
        LightKind::Spot { direction, inner_deg, outer_deg } => {
            let up = direction.any_orthonormal_vector();
            let (co, ci) = (outer_deg.to_radians().cos(), inner_deg.to_radians().cos());
            (KIND_SPOT, direction, up, co, ci, outer_deg.to_radians().tan(), 0)
        }
        LightKind::Projector { direction, up, fov_deg, texture_layer } => {
            let half = (fov_deg * 0.5).to_radians();
            (KIND_PROJECTOR, direction, up, half.cos(), half.cos(), half.tan(), texture_layer)
        }
    };
    GpuLight {
        position_range: l.position.extend(l.range_m).to_array(),
        color_intensity: l.color.extend(l.intensity).to_array(),
        direction_cos_outer: dir.extend(cos_outer).to_array(),
        up_cos_inner: up.extend(cos_inner).to_array(),
        kind_shadow: [kind, l.shadow_layer.unwrap_or(NO_SHADOW), tex, 1],
        projector: [tan_half, 0.0, crate::view::LIGHT_NEAR_M, 0.0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::Camera;

    fn camera(clip_from_view: Mat4, far_m: f32) -> Camera {
        Camera { view_from_world: Mat4::IDENTITY, clip_from_view, near_m: 0.1, far_m }
    }

    #[test]
    fn a_projection_must_match_the_depth_convention() {
        let s = Settings::default();
        let forward = Mat4::perspective_rh(1.0, 1.5, 0.1, 100.0);
        let reversed = Mat4::perspective_infinite_reverse_rh(1.0, 1.5, 0.1);
        let fwd = DepthConvention::default();
        let rev = DepthConvention { reversed: true, infinite_far: true };
        assert!(FrameInputs::new(&camera(forward, 100.0), fwd, &s).is_ok());
        assert!(FrameInputs::new(&camera(reversed, f32::INFINITY), rev, &s).is_ok());
        let e = |r: Result<FrameInputs>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e(FrameInputs::new(&camera(reversed, f32::INFINITY), fwd, &s)).contains("infinite far"));
        let finite_rev = DepthConvention { reversed: true, infinite_far: false };
        assert!(e(FrameInputs::new(&camera(forward, 100.0), finite_rev, &s)).contains("made for reversed Z"));
        let ortho = Mat4::orthographic_rh(-1.0, 1.0, -1.0, 1.0, 0.1, 100.0);
        assert!(e(FrameInputs::new(&camera(ortho, 100.0), fwd, &s)).contains("w row"));
    }

    fn image(format: vk::Format, usage: vk::ImageUsageFlags) -> ViewerImage {
        let none = HostImageState {
            layout: vk::ImageLayout::UNDEFINED,
            stage: vk::PipelineStageFlags2::NONE,
            access: vk::AccessFlags2::NONE,
        };
        ViewerImage {
            image: vk::Handle::from_raw(1),
            view: vk::ImageView::null(),
            format,
            extent: (64, 32),
            layers: 1,
            usage,
            entry: none,
            exit: none,
        }
    }

    fn resources<'a>(lights: &'a [Light]) -> FrameResources<'a> {
        FrameResources {
            depth: image(vk::Format::D32_SFLOAT, vk::ImageUsageFlags::SAMPLED),
            hdr: image(vk::Format::R16G16B16A16_SFLOAT, vk::ImageUsageFlags::STORAGE),
            sun: Sun { to_sun: Vec3::Z, color: Vec3::ONE, illuminance: 1.0 },
            ambient: [Vec3::ZERO; 2],
            shadows: None,
            lights,
            projectors: None,
            froxels: None,
        }
    }

    #[test]
    fn resources_the_fog_cannot_use_are_refused_with_a_reason() {
        let e = |r: Result<()>| r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(resources(&[]).check((64, 32)).is_ok());
        assert!(e(resources(&[]).check((128, 64))).contains("resize first"));
        let mut r = resources(&[]);
        r.hdr.format = vk::Format::B10G11R11_UFLOAT_PACK32;
        assert!(e(r.check((64, 32))).contains("cannot composite into"));
        let mut r = resources(&[]);
        r.hdr.usage = vk::ImageUsageFlags::SAMPLED;
        assert!(e(r.check((64, 32))).contains("STORAGE"));
        let mut r = resources(&[]);
        r.depth.format = vk::Format::D24_UNORM_S8_UINT;
        assert!(e(r.check((64, 32))).contains("depth-only view"));
        let point = Light {
            position: Vec3::ZERO,
            range_m: 5.0,
            color: Vec3::ONE,
            intensity: 1.0,
            kind: LightKind::Point,
            shadow_layer: Some(0),
        };
        assert!(e(resources(&[point]).check((64, 32))).contains("shadow layers"), "no shadow maps given");
        let nan = Light { position: Vec3::NAN, shadow_layer: None, ..point };
        assert!(e(resources(&[nan]).check((64, 32))).contains("finite"));
        let kind = LightKind::Projector { direction: Vec3::Z, up: Vec3::Y, fov_deg: 30.0, texture_layer: 0 };
        let projector = Light { kind, shadow_layer: None, ..point };
        assert!(e(resources(&[projector]).check((64, 32))).contains("projector texture layer"));
    }
}
