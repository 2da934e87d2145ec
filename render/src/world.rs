//! A scene on the GPU: one vertex/index buffer for every object's mesh, the object table, the
//! light list, projector textures (one 2D array), and the shadow-atlas layout (which layers belong to
//! the sun cascades and to each shadowed light). Built once per scene; the per-frame parts (frame
//! constants, shadow views that follow the camera) are written by [`crate::frame`].

use ash::vk;
use glam::{Mat4, Vec3};

use crate::error::{RenderError, Result};
use crate::gpu_types::{GpuLight, GpuObject, ShadowView};
use crate::passes::opaque::bvh::{Bvh, Triangle};
use crate::passes::opaque::LightInputs;
use crate::scene::{mesh_for, LightKind, Scene};
use crate::textures;
use crate::view::{self, CameraView, CASCADES};
use crate::vk::context::Gpu;
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};

/// Side of each projector texture layer, texels.
pub const PROJECTOR_TEXTURE_SIZE: u32 = 256;
/// Side of each shadow-atlas layer, texels.
pub const SHADOW_MAP_SIZE: u32 = 2048;
/// Bytes per vertex: position, normal (3 floats each) and uv (2 floats).
pub const VERTEX_BYTES: u32 = 32;
/// A point light, as the shaders number light kinds.
pub const KIND_POINT: u32 = 0;
/// A spot light.
pub const KIND_SPOT: u32 = 1;
/// A projector.
pub const KIND_PROJECTOR: u32 = 2;
/// `GpuLight.kind_shadow.y` for lights without shadows.
pub const NO_SHADOW: u32 = u32::MAX;

/// One object's draw.
#[derive(Clone, Copy, Debug)]
pub struct Draw {
    /// Index into the object table.
    pub object: u32,
    /// First index in the shared index buffer.
    pub first_index: u32,
    /// Index count.
    pub index_count: u32,
    /// Added to each index.
    pub vertex_offset: i32,
    /// World-space bounds of the object, minimum corner, m.
    pub lo: Vec3,
    /// World-space bounds, maximum corner, m.
    pub hi: Vec3,
}

/// What a shadow-atlas layer is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShadowLayer {
    /// Sun cascade `n`.
    Cascade(usize),
    /// A spot or projector light's single view.
    Spot {
        /// Light position, m.
        position: Vec3,
        /// Unit axis.
        direction: Vec3,
        /// Up vector of the view.
        up: Vec3,
        /// Full field of view, radians.
        fov_y: f32,
        /// Far plane, m.
        range: f32,
    },
    /// One cube face of a point light.
    PointFace {
        /// Light position, m.
        position: Vec3,
        /// Far plane, m.
        range: f32,
        /// Face index: +X, -X, +Y, -Y, +Z, -Z.
        face: usize,
    },
}

/// The scene's GPU resources.
pub struct World {
    /// Interleaved vertices of every mesh.
    pub vertices: Buffer,
    /// u32 indices of every mesh.
    pub indices: Buffer,
    /// `GpuObject` per object.
    pub objects: Buffer,
    /// One draw per object.
    pub draws: Vec<Draw>,
    /// `GpuBvhNode`s of every object's triangles in world space (`host.opaque` casts through them).
    pub bvh_nodes: Buffer,
    /// `GpuRayTriangle`s in the hierarchy's leaf order.
    pub bvh_triangles: Buffer,
    /// Nodes in `bvh_nodes` (0: nothing to hit).
    pub bvh_node_count: u32,
    /// `GpuLight` per light (at least one slot, so the buffer is never empty).
    pub lights: Buffer,
    /// Number of lights.
    pub light_count: u32,
    /// Projector textures, one layer each (layer 0 is white when there are none).
    pub projector_tex: Image,
    /// Depth layers: sun cascades first, then each shadowed light's views.
    pub shadow_atlas: Image,
    /// What each atlas layer shows.
    pub shadow_layers: Vec<ShadowLayer>,
    /// `ShadowView` per atlas layer, rewritten every frame (host-visible).
    pub shadow_views: Buffer,
    /// This frame's view of each layer ([`World::update_shadow_views`]).
    views: Vec<ShadowView>,
    /// The view each layer's depth was last drawn with (`None`: never drawn). The geometry and the
    /// lights never change after [`World::new`], so a layer whose view is unchanged still holds
    /// the right depth and is not drawn again.
    drawn: Vec<Option<ShadowView>>,
}

impl World {
    /// The lighting inputs of this world with the frame constants `frame`.
    pub fn light_inputs<'r>(&'r self, frame: &'r Buffer) -> LightInputs<'r> {
        LightInputs {
            frame,
            objects: &self.objects,
            lights: &self.lights,
            shadow_views: &self.shadow_views,
            shadow_atlas: &self.shadow_atlas,
            projector_tex: &self.projector_tex,
        }
    }

    /// Uploads `scene`.
    pub fn new(gpu: &mut Gpu, scene: &Scene) -> Result<World> {
        let (vertex_bytes, index_bytes, draws, objects, triangles) = build_meshes(scene);
        let bvh = Bvh::build(triangles);
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER | vk::BufferUsageFlags::TRANSFER_DST;
        let vertices =
            upload(gpu, "world.vertices", &vertex_bytes, vk::BufferUsageFlags::VERTEX_BUFFER | storage)?;
        let indices =
            upload(gpu, "world.indices", &index_bytes, vk::BufferUsageFlags::INDEX_BUFFER | storage)?;
        let objects = upload(gpu, "world.objects", bytemuck::cast_slice(&objects), storage)?;
        let bvh_nodes = upload(gpu, "world.bvh_nodes", bytemuck::cast_slice(&bvh.nodes), storage)?;
        let bvh_triangles =
            upload(gpu, "world.bvh_triangles", bytemuck::cast_slice(&bvh.triangles), storage)?;
        let (projector_images, projector_layer_of) = load_projector_textures(scene)?;
        let (gpu_lights, shadow_layers) = build_lights(scene, &projector_layer_of);
        let light_count = gpu_lights.len() as u32;
        let padded = if gpu_lights.is_empty() { vec![GpuLight::default()] } else { gpu_lights };
        let lights = upload(gpu, "world.lights", bytemuck::cast_slice(&padded), storage)?;
        let projector_tex = textures::upload_array(
            gpu,
            "world.projector_tex",
            &projector_images,
            PROJECTOR_TEXTURE_SIZE,
            true,
        )?;
        let shadow_atlas = gpu
            .create_image(&ImageDesc {
                name: "world.shadow_atlas",
                kind: vk::ImageType::TYPE_2D,
                format: vk::Format::D32_SFLOAT,
                extent: vk::Extent3D { width: SHADOW_MAP_SIZE, height: SHADOW_MAP_SIZE, depth: 1 },
                layers: shadow_layers.len() as u32,
                array: true,
                mips: 1,
                usage: vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED,
            })
            .map_err(|e| explain_shadow_atlas_failure(e, &shadow_layers))?;
        let shadow_views = gpu.create_buffer(&BufferDesc {
            name: "world.shadow_views",
            size: (shadow_layers.len() * std::mem::size_of::<ShadowView>()) as u64,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::Staged,
        })?;
        Ok(World {
            vertices,
            indices,
            objects,
            draws,
            bvh_node_count: bvh.nodes.len() as u32,
            bvh_nodes,
            bvh_triangles,
            lights,
            light_count,
            projector_tex,
            shadow_atlas,
            drawn: vec![None; shadow_layers.len()],
            views: Vec::new(),
            shadow_layers,
            shadow_views,
        })
    }

    /// The atlas layers `host.shadow` must draw this frame: those whose view changed since they
    /// were last drawn (every layer on the first frame; the sun's cascades when the camera moves).
    pub fn shadow_layers_to_draw(&self) -> Vec<u32> {
        (0..self.views.len())
            .filter(|&i| {
                self.drawn[i].is_none_or(|d| bytemuck::bytes_of(&d) != bytemuck::bytes_of(&self.views[i]))
            })
            .map(|i| i as u32)
            .collect()
    }

    /// Whether `draw` can cast into atlas layer `layer` as this frame views it
    /// ([`may_cast_into`]); `host.shadow` skips the draws that cannot.
    pub fn layer_sees(&self, layer: u32, draw: &Draw) -> bool {
        self.views
            .get(layer as usize)
            .is_none_or(|v| may_cast_into(Mat4::from_cols_array_2d(&v.clip_from_world), draw.lo, draw.hi))
    }

    /// Forgets what every shadow layer holds, so the next frame draws them all (for a caller that
    /// changed what casts shadows).
    pub fn invalidate_shadows(&mut self) {
        self.drawn.iter_mut().for_each(|d| *d = None);
    }

    /// Records that this frame's shadow layers reached the GPU (call after a successful submission
    /// of `host.shadow`; after a failed one the layers are drawn again next frame).
    pub fn shadows_drawn(&mut self) {
        for (d, v) in self.drawn.iter_mut().zip(&self.views) {
            *d = Some(*v);
        }
    }

    /// Recomputes every shadow view for this camera and writes them (call between submissions).
    /// Returns the view distance (m) at the far end of each sun cascade, for the frame constants.
    pub fn update_shadow_views(
        &mut self,
        camera: &CameraView,
        to_sun: Vec3,
        sun_distance_m: f32,
    ) -> [f32; 4] {
        let cascades = view::sun_cascades(camera, to_sun, SHADOW_MAP_SIZE, sun_distance_m);
        let views: Vec<ShadowView> = self
            .shadow_layers
            .iter()
            .map(|layer| match *layer {
                ShadowLayer::Cascade(i) => {
                    shadow_view(cascades[i].clip_from_world, cascades[i].texel_m, true)
                }
                ShadowLayer::Spot { position, direction, up, fov_y, range } => {
                    let m = view::spot_view(position, direction, up, fov_y, range);
                    shadow_view(m, perspective_texel_m(fov_y), false)
                }
                ShadowLayer::PointFace { position, range, face } => {
                    let m = view::point_face(position, range, face);
                    shadow_view(m, perspective_texel_m(std::f32::consts::FRAC_PI_2), false)
                }
            })
            .collect();
        self.shadow_views.write(0, bytemuck::cast_slice(&views));
        self.views = views;
        std::array::from_fn(|i| cascades.get(i).map_or(0.0, |c| c.far_m))
    }
}

/// Texel size used for the normal offset of perspective views, at a typical 4 m distance.
fn perspective_texel_m(fov_y: f32) -> f32 {
    const TYPICAL_DISTANCE_M: f32 = 4.0;
    2.0 * (fov_y * 0.5).tan() * TYPICAL_DISTANCE_M / SHADOW_MAP_SIZE as f32
}

fn shadow_view(clip_from_world: Mat4, texel_m: f32, ortho: bool) -> ShadowView {
    ShadowView {
        clip_from_world: clip_from_world.to_cols_array_2d(),
        params: [texel_m, texel_m, if ortho { 1.0 } else { 0.0 }, 0.0],
    }
}

fn upload(gpu: &mut Gpu, name: &str, bytes: &[u8], usage: vk::BufferUsageFlags) -> Result<Buffer> {
    let buf = gpu.create_buffer(&BufferDesc {
        name,
        size: bytes.len().max(16) as u64,
        usage: usage | vk::BufferUsageFlags::TRANSFER_DST,
        location: MemoryLocation::GpuOnly,
    })?;
    if !bytes.is_empty() {
        gpu.upload(&buf, bytes)?;
    }
    Ok(buf)
}

/// Whether any part of the box `lo..hi` can fall inside the view `clip_from_world`: false only
/// when all eight corners lie beyond the same side plane or beyond the far plane (clip-space
/// half-spaces, so it holds for perspective views too). Never culled by the near plane: a caster
/// between a light and the volume it views still shades that volume.
pub fn may_cast_into(clip_from_world: Mat4, lo: Vec3, hi: Vec3) -> bool {
    let corners: [glam::Vec4; 8] = std::array::from_fn(|i| {
        let pick = |bit: usize, a: f32, b: f32| if i & bit == 0 { a } else { b };
        clip_from_world * glam::Vec4::new(pick(1, lo.x, hi.x), pick(2, lo.y, hi.y), pick(4, lo.z, hi.z), 1.0)
    });
    let outside = |beyond: &dyn Fn(&glam::Vec4) -> bool| corners.iter().all(beyond);
    !(outside(&|c| c.x < -c.w)
        || outside(&|c| c.x > c.w)
        || outside(&|c| c.y < -c.w)
        || outside(&|c| c.y > c.w)
        || outside(&|c| c.z > c.w))
}

/// Every triangle of `scene`'s objects in world space (what `host.opaque` casts rays at).
pub fn scene_triangles(scene: &Scene) -> Vec<Triangle> {
    build_meshes(scene).4
}

/// Vertex bytes, index bytes, draws, objects and every triangle in world space.
type MeshData = (Vec<u8>, Vec<u8>, Vec<Draw>, Vec<GpuObject>, Vec<Triangle>);

fn build_meshes(scene: &Scene) -> MeshData {
    let (mut vertices, mut indices, mut draws, mut objects, mut triangles) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut vertex_count = 0usize;
    for (i, object) in scene.objects.iter().enumerate() {
        let mesh = mesh_for(&object.shape);
        let t = &object.transform;
        let world_from_local = Mat4::from_scale_rotation_translation(t.scale, t.rotation, t.position);
        let world_points = mesh.positions.iter().map(|p| world_from_local.transform_point3((*p).into()));
        let (lo, hi) =
            world_points.fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| (lo.min(p), hi.max(p)));
        draws.push(Draw {
            object: i as u32,
            first_index: (indices.len() / 4) as u32,
            index_count: mesh.indices.len() as u32,
            vertex_offset: vertex_count as i32,
            lo,
            hi,
        });
        for ((p, n), uv) in mesh.positions.iter().zip(&mesh.normals).zip(&mesh.uvs) {
            for f in p.iter().chain(n).chain(uv) {
                vertices.extend_from_slice(&f.to_le_bytes());
            }
        }
        vertex_count += mesh.positions.len();
        indices.extend(mesh.indices.iter().flat_map(|i| i.to_le_bytes()));
        let normal_from_local = world_from_local.inverse().transpose();
        for corners in mesh.indices.chunks_exact(3) {
            let corner = |k: usize| corners[k] as usize;
            triangles.push(Triangle {
                p: [0, 1, 2].map(|k| world_from_local.transform_point3(mesh.positions[corner(k)].into())),
                n: [0, 1, 2].map(|k| {
                    normal_from_local.transform_vector3(mesh.normals[corner(k)].into()).normalize_or_zero()
                }),
                object: i as u32,
            });
        }
        objects.push(GpuObject {
            world_from_local: world_from_local.to_cols_array_2d(),
            normal_from_local: normal_from_local.to_cols_array_2d(),
            albedo: object.albedo.extend(1.0).to_array(),
            emissive: object.emissive.extend(0.0).to_array(),
        });
    }
    (vertices, indices, draws, objects, triangles)
}

/// Bytes of one shadow-atlas layer (D32: four bytes a texel).
const SHADOW_LAYER_BYTES: u64 = SHADOW_MAP_SIZE as u64 * SHADOW_MAP_SIZE as u64 * 4;

/// Adds to a failed shadow-atlas creation what was asked and what to change: the layer count and
/// where it comes from, the memory it needs, and the device limits it runs into.
fn explain_shadow_atlas_failure(e: RenderError, layers: &[ShadowLayer]) -> RenderError {
    let why = shadow_atlas_request(layers);
    match e {
        RenderError::OutOfMemory(what) => RenderError::OutOfMemory(format!("{what}: {why}")),
        RenderError::Vulkan { what, result } => {
            RenderError::Vulkan { what: format!("{what}: {why}"), result }
        }
        other => other,
    }
}

/// "the shadow atlas asked for 404 layers (...)": the request, the limits, the remedy.
pub fn shadow_atlas_request(layers: &[ShadowLayer]) -> String {
    let point_faces = layers.iter().filter(|l| matches!(l, ShadowLayer::PointFace { .. })).count();
    let spots = layers.iter().filter(|l| matches!(l, ShadowLayer::Spot { .. })).count();
    let mib = |bytes: u64| bytes / (1024 * 1024);
    format!(
        "the shadow atlas asked for {} layers ({CASCADES} sun cascades, {} point light(s) x 6 faces, {spots} \
         spot or projector light(s) x 1) of {SHADOW_MAP_SIZE}x{SHADOW_MAP_SIZE} depth, {} MiB each, {} MiB in \
         all; the limits are the device's memory and its maxImageArrayLayers (2048 on lavapipe); set \
         `shadows = false` on some of the scene's lights",
        layers.len(),
        point_faces / 6,
        mib(SHADOW_LAYER_BYTES),
        mib(SHADOW_LAYER_BYTES * layers.len() as u64),
    )
}

/// GPU lights and the atlas layout: cascades first, then each shadowed light's views.
fn build_lights(
    scene: &Scene,
    projector_layer_of: &dyn Fn(&str) -> u32,
) -> (Vec<GpuLight>, Vec<ShadowLayer>) {
    let mut layers: Vec<ShadowLayer> = (0..CASCADES).map(ShadowLayer::Cascade).collect();
    let lights = scene
        .lights
        .iter()
        .map(|l| {
            let first_layer = layers.len() as u32;
            let (kind, dir, up, cos_outer, cos_inner, tan_half, tex) = match &l.kind {
                LightKind::Point => (KIND_POINT, Vec3::Z, Vec3::Y, -1.0, -1.0, 1.0, 0),
                LightKind::Spot { direction, inner_deg, outer_deg } => {
                    let up = direction.any_orthonormal_vector();
                    let (co, ci) = (outer_deg.to_radians().cos(), inner_deg.to_radians().cos());
                    (KIND_SPOT, *direction, up, co, ci, outer_deg.to_radians().tan(), 0)
                }
                LightKind::Projector { direction, up, fov_deg, texture, .. } => {
                    let half = (fov_deg * 0.5).to_radians();
                    (
                        KIND_PROJECTOR,
                        *direction,
                        *up,
                        half.cos(),
                        half.cos(),
                        half.tan(),
                        projector_layer_of(texture),
                    )
                }
            };
            if l.shadows {
                if kind == KIND_POINT {
                    layers.extend((0..6).map(|face| ShadowLayer::PointFace {
                        position: l.position,
                        range: l.range,
                        face,
                    }));
                } else {
                    let fov_y = 2.0 * tan_half.atan();
                    layers.push(ShadowLayer::Spot {
                        position: l.position,
                        direction: dir,
                        up,
                        fov_y,
                        range: l.range,
                    });
                }
            }
            let flags = u32::from(l.volumetric) | (u32::from(l.history) << 1);
            GpuLight {
                position_range: l.position.extend(l.range).to_array(),
                color_intensity: l.color.extend(l.intensity).to_array(),
                direction_cos_outer: dir.extend(cos_outer).to_array(),
                up_cos_inner: up.extend(cos_inner).to_array(),
                kind_shadow: [kind, if l.shadows { first_layer } else { NO_SHADOW }, tex, flags],
                projector: [tan_half, 0.0, view::LIGHT_NEAR_M, 0.0],
            }
        })
        .collect();
    (lights, layers)
}

type ProjectorTextures = (Vec<image::RgbaImage>, Box<dyn Fn(&str) -> u32>);

/// Loads every texture a projector names, resized to one layer size; layer 0 is plain white.
fn load_projector_textures(scene: &Scene) -> Result<ProjectorTextures> {
    let white =
        image::RgbaImage::from_pixel(PROJECTOR_TEXTURE_SIZE, PROJECTOR_TEXTURE_SIZE, image::Rgba([255; 4]));
    let mut images = vec![white];
    let mut names: Vec<String> = Vec::new();
    for light in &scene.lights {
        let LightKind::Projector { texture, .. } = &light.kind else { continue };
        if names.contains(texture) {
            continue;
        }
        let user = format!("projector {}", light.name);
        images.push(textures::load_named(scene, texture, &user, PROJECTOR_TEXTURE_SIZE)?);
        names.push(texture.clone());
    }
    let lookup = move |name: &str| names.iter().position(|n| n == name).map_or(0, |i| i as u32 + 1);
    Ok((images, Box::new(lookup)))
}

#[cfg(test)]
mod shadow_atlas_tests {
    use super::*;

    /// A scene of `spots` shadowed spot lights and `points` shadowed point lights.
    fn lights_scene(spots: usize, points: usize) -> Scene {
        let mut text = String::from("[camera]\nposition = [0.0, -6.0, 2.0]\ntarget = [0.0, 0.0, 0.5]\n");
        for _ in 0..spots {
            text += "[[light]]\nkind = \"spot\"\nposition = [0.0, 0.0, 3.0]\ndirection = [0.0, 0.0, -1.0]\nshadows = true\n";
        }
        for _ in 0..points {
            text += "[[light]]\nkind = \"point\"\nposition = [0.0, 0.0, 3.0]\nshadows = true\n";
        }
        crate::scene::parse(&text, std::path::Path::new("lights.toml")).expect("scene parses")
    }

    #[test]
    fn an_unallocatable_shadow_atlas_says_how_many_layers_were_asked_and_what_to_change() {
        let (_, layers) = build_lights(&lights_scene(400, 2), &|_| 0);
        let oom = RenderError::OutOfMemory("creating image world.shadow_atlas".into());
        let text = explain_shadow_atlas_failure(oom, &layers).to_string();
        let layer_mib = (SHADOW_MAP_SIZE * SHADOW_MAP_SIZE * 4 / (1024 * 1024)) as usize;
        let total = CASCADES + 400 + 2 * 6;
        for part in [
            "out of memory while creating image world.shadow_atlas: ".to_owned(),
            format!(
                "asked for {total} layers ({CASCADES} sun cascades, 2 point light(s) x 6 faces, 400 spot"
            ),
            format!("{layer_mib} MiB each, {} MiB in all", layer_mib * total),
            "maxImageArrayLayers".to_owned(),
            "set `shadows = false` on some of the scene's lights".to_owned(),
        ] {
            assert!(text.contains(&part), "{part:?} missing from: {text}");
        }
    }
}

#[cfg(test)]
mod shadow_culling_tests {
    use super::*;

    /// An orthographic view down -z over x, y in -5..5 and depths 0..20 below z = 10 (a sun
    /// cascade's shape).
    fn sun_view() -> Mat4 {
        let view = Mat4::look_at_rh(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y);
        Mat4::orthographic_rh(-5.0, 5.0, -5.0, 5.0, 0.0, 20.0) * view
    }

    #[test]
    fn boxes_beside_or_beyond_a_view_are_culled_and_casters_in_front_of_it_kept() {
        let m = sun_view();
        let unit = |c: Vec3| (c - Vec3::splat(0.5), c + Vec3::splat(0.5));
        let sees = |c: Vec3| {
            let (lo, hi) = unit(c);
            may_cast_into(m, lo, hi)
        };
        assert!(sees(Vec3::ZERO), "inside");
        assert!(sees(Vec3::new(5.3, 0.0, 0.0)), "straddling a side");
        assert!(!sees(Vec3::new(7.0, 0.0, 0.0)) && !sees(Vec3::new(0.0, -7.0, 0.0)), "beside");
        assert!(!sees(Vec3::new(0.0, 0.0, -12.0)), "beyond the far plane");
        assert!(sees(Vec3::new(0.0, 0.0, 14.0)), "between the light and the near plane: casts");
    }

    #[test]
    fn a_perspective_view_culls_what_lies_outside_its_cone() {
        let view = Mat4::look_at_rh(Vec3::ZERO, Vec3::NEG_Z, Vec3::Y);
        let m = Mat4::perspective_rh(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 10.0) * view;
        let sees = |c: Vec3| may_cast_into(m, c - Vec3::splat(0.2), c + Vec3::splat(0.2));
        assert!(sees(Vec3::new(0.0, 0.0, -5.0)));
        assert!(!sees(Vec3::new(6.0, 0.0, -2.0)), "outside the 90-degree cone");
        assert!(!sees(Vec3::new(0.0, 0.0, -12.0)), "beyond the range");
        assert!(!sees(Vec3::new(0.0, 0.0, 3.0)), "behind the light");
    }
}
