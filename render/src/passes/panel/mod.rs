//! `view.panel`: the live viewer's egui panel painted over the tone-mapped LDR image, a timed pass
//! like any other (its GPU cost is a row of the timing table).
//!
//! One graphics pipeline (push descriptors, dynamic rendering): egui's triangles pulled from two
//! staged storage buffers (`panel.vert`), times egui's font atlas (`panel.frag`), blended
//! premultiplied "over" in the sRGB encoding the LDR image holds (as egui paints into a gamma
//! framebuffer). Only egui's managed texture 0, the font atlas, is drawn: the panel shows no
//! images. The atlas is kept on the host and uploaded whole when egui changes any part of it
//! (a few times per run: at start and when new glyphs appear).

use ash::vk;

use crate::error::Result;
use crate::passes::billboards::pipeline::HUD_TARGET_FORMAT;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, Blend, GraphicsDesc, GraphicsPipeline};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;

/// The pass name.
pub const NAME: &str = "view.panel";
/// 32-bit words per vertex in `view.panel.vertices`: position (2), uv (2), colour (1).
const VERTEX_WORDS: usize = 5;
/// The smallest vertex or index buffer made, bytes.
const MIN_BUFFER_BYTES: u64 = 64 * 1024;

/// One egui mesh: a run of indices, its vertex base and its clip rectangle in pixels.
#[derive(Clone, Copy, Debug)]
struct PanelDraw {
    first_index: u32,
    count: u32,
    vertex_base: u32,
    clip: vk::Rect2D,
}

/// The push constants of `panel.vert`.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct PanelPush {
    screen_points: [f32; 2],
    vertex_base: u32,
    unused: u32,
}
const _: () = assert!(std::mem::size_of::<PanelPush>() == 16);

/// The panel's pipeline, font atlas and this frame's triangles.
pub struct PanelPass {
    pipeline: GraphicsPipeline,
    samplers: Samplers,
    /// The font atlas on the GPU (made on the first delta egui sends).
    font: Option<Image>,
    /// The atlas on the host, RGBA8 rows, and its size in texels.
    font_pixels: Vec<u8>,
    font_size: [usize; 2],
    /// The whole atlas waiting to be copied into `font` by the next [`PanelPass::record`].
    upload: Option<Buffer>,
    vertices: Option<Buffer>,
    indices: Option<Buffer>,
    draws: Vec<PanelDraw>,
    screen_points: [f32; 2],
}

impl PanelPass {
    /// Creates the pipeline (LDR colour, no depth).
    pub fn new(gpu: &Gpu) -> Result<Self> {
        let pipeline = gpu.create_graphics_pipeline(&GraphicsDesc {
            name: NAME,
            vertex: shaders::PASSES_PANEL_PANEL_VERT,
            fragment: Some(shaders::PASSES_PANEL_PANEL_FRAG),
            push_size: std::mem::size_of::<PanelPush>() as u32,
            vertex_layout: None,
            color_formats: &[HUD_TARGET_FORMAT],
            depth_format: None,
            depth_test: false,
            depth_write: false,
            blend: Blend::PremultipliedOver,
            cull_back: false,
            depth_bias: false,
        })?;
        Ok(PanelPass {
            pipeline,
            samplers: Samplers::new(gpu)?,
            font: None,
            font_pixels: Vec::new(),
            font_size: [0, 0],
            upload: None,
            vertices: None,
            indices: None,
            draws: Vec::new(),
            screen_points: [1.0, 1.0],
        })
    }

    /// Takes egui's texture changes and this frame's triangles for a `width` x `height` target
    /// at `pixels_per_point`: patches the atlas, stages it for upload, and writes the triangles
    /// into the staged buffers (grown when too small).
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        textures: &egui::TexturesDelta,
        primitives: &[egui::ClippedPrimitive],
        (width, height, pixels_per_point): (u32, u32, f32),
    ) -> Result<()> {
        for (id, deltas) in &textures.set {
            if *id == egui::TextureId::Managed(0) {
                for delta in deltas {
                    self.patch_font(delta);
                }
            }
        }
        if !textures.set.is_empty() && self.font_size[0] > 0 {
            self.stage_font(gpu)?;
        }
        let ppp = pixels_per_point.max(1e-3);
        self.screen_points = [width as f32 / ppp, height as f32 / ppp];
        let (words, indices) = self.collect_draws(primitives, (width, height, ppp));
        write_staged(gpu, &mut self.vertices, "view.panel.vertices", bytemuck::cast_slice(&words))?;
        write_staged(gpu, &mut self.indices, "view.panel.indices", bytemuck::cast_slice(&indices))?;
        Ok(())
    }

    /// Copies a delta into the host atlas (a whole image replaces it).
    fn patch_font(&mut self, delta: &egui::epaint::ImageDelta) {
        let egui::ImageData::Color(image) = &delta.image;
        let [w, h] = image.size;
        let [x0, y0] = delta.pos.unwrap_or([0, 0]);
        if delta.pos.is_none() {
            self.font_size = [w, h];
            self.font_pixels = vec![0; w * h * 4];
        }
        let [fw, fh] = self.font_size;
        for y in 0..h.min(fh.saturating_sub(y0)) {
            for x in 0..w.min(fw.saturating_sub(x0)) {
                let at = ((y0 + y) * fw + x0 + x) * 4;
                self.font_pixels[at..at + 4].copy_from_slice(&image.pixels[y * w + x].to_array());
            }
        }
    }

    /// Makes the atlas image (when its size changed) and the upload of the whole host atlas.
    fn stage_font(&mut self, gpu: &Gpu) -> Result<()> {
        let [w, h] = self.font_size;
        let extent = vk::Extent3D { width: w as u32, height: h as u32, depth: 1 };
        if self.font.as_ref().is_none_or(|f| f.extent != extent) {
            self.font = Some(gpu.create_image(&ImageDesc {
                name: "view.panel.font",
                kind: vk::ImageType::TYPE_2D,
                format: vk::Format::R8G8B8A8_UNORM,
                extent,
                layers: 1,
                array: false,
                mips: 1,
                usage: vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST,
            })?);
        }
        let mut upload = gpu.create_buffer(&BufferDesc {
            name: "view.panel.font_upload",
            size: self.font_pixels.len() as u64,
            usage: vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })?;
        upload.write(0, &self.font_pixels);
        self.upload = Some(upload);
        Ok(())
    }

    /// The vertex words and indices of every mesh drawn with the font atlas, and its draws.
    fn collect_draws(
        &mut self,
        primitives: &[egui::ClippedPrimitive],
        (width, height, ppp): (u32, u32, f32),
    ) -> (Vec<u32>, Vec<u32>) {
        self.draws.clear();
        let (mut words, mut indices) = (Vec::new(), Vec::new());
        for p in primitives {
            let egui::epaint::Primitive::Mesh(mesh) = &p.primitive else { continue };
            if mesh.texture_id != egui::TextureId::Managed(0) || mesh.indices.is_empty() {
                continue;
            }
            let Some(clip) = clip_pixels(p.clip_rect, ppp, (width, height)) else { continue };
            let vertex_base = (words.len() / VERTEX_WORDS) as u32;
            self.draws.push(PanelDraw {
                first_index: indices.len() as u32,
                count: mesh.indices.len() as u32,
                vertex_base,
                clip,
            });
            indices.extend_from_slice(&mesh.indices);
            for v in &mesh.vertices {
                let colour = u32::from_le_bytes(v.color.to_array());
                words.extend([
                    v.pos.x.to_bits(),
                    v.pos.y.to_bits(),
                    v.uv.x.to_bits(),
                    v.uv.y.to_bits(),
                    colour,
                ]);
            }
        }
        (words, indices)
    }

    /// Draws the prepared triangles over `ldr` (the atlas upload first, when one is waiting).
    pub fn record(&mut self, rec: &mut Recorder<'_>, ldr: &Image) -> Result<()> {
        let (Some(font), Some(vertices), Some(indices)) = (&self.font, &self.vertices, &self.indices) else {
            return Ok(());
        };
        if let Some(upload) = self.upload.take() {
            let uses = [Use::Buffer(&upload, Access::TransferRead), Use::Image(font, Access::TransferWrite)];
            rec.setup("view.panel.font_upload", &uses, |rec| rec.copy_buffer_to_image(&upload, font, 4));
        }
        if self.draws.is_empty() {
            return Ok(());
        }
        let bindings = [
            Binding::Storage(vertices, Access::VertexRead),
            Binding::Storage(indices, Access::VertexRead),
            Binding::Sampled(font, self.samplers.linear_clamp, Access::FragmentRead),
        ];
        let colour = Attachment { image: ldr, clear: None, layer: None };
        let (draws, pipeline, screen_points) = (&self.draws, &self.pipeline, self.screen_points);
        rec.render(NAME, &[colour], None, &bindings, &[], |rec| {
            rec.bind_graphics(pipeline, &bindings, &[0; 16]);
            for d in draws {
                let push = PanelPush { screen_points, vertex_base: d.vertex_base, unused: 0 };
                rec.push_graphics_constants(pipeline, bytemuck::bytes_of(&push));
                // SAFETY: inside the rendering begun by `render`, with the panel pipeline bound;
                // the scissor lies within the target (clamped by `clip_pixels`) and the indices
                // within the buffers written by `prepare`.
                unsafe {
                    rec.device().cmd_set_scissor(rec.cmd, 0, &[d.clip]);
                    rec.device().cmd_draw(rec.cmd, d.count, 1, d.first_index, 0);
                }
            }
        })
    }
}

/// An egui clip rectangle (points) as a scissor in pixels within the target, or `None` when
/// nothing of it is inside.
fn clip_pixels(rect: egui::Rect, ppp: f32, (width, height): (u32, u32)) -> Option<vk::Rect2D> {
    let x0 = (rect.min.x * ppp).round().clamp(0.0, width as f32) as u32;
    let y0 = (rect.min.y * ppp).round().clamp(0.0, height as f32) as u32;
    let x1 = (rect.max.x * ppp).round().clamp(0.0, width as f32) as u32;
    let y1 = (rect.max.y * ppp).round().clamp(0.0, height as f32) as u32;
    (x1 > x0 && y1 > y0).then(|| vk::Rect2D {
        offset: vk::Offset2D { x: x0 as i32, y: y0 as i32 },
        extent: vk::Extent2D { width: x1 - x0, height: y1 - y0 },
    })
}

/// Writes `bytes` into the staged buffer in `slot`, made anew (named `name`) when missing or too
/// small; an empty write leaves the buffer as it is.
fn write_staged(gpu: &Gpu, slot: &mut Option<Buffer>, name: &str, bytes: &[u8]) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    let needed = bytes.len() as u64;
    if slot.as_ref().is_none_or(|b| b.size < needed) {
        *slot = Some(gpu.create_buffer(&BufferDesc {
            name,
            size: needed.next_power_of_two().max(MIN_BUFFER_BYTES),
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::Staged,
        })?);
    }
    if let Some(buf) = slot.as_mut() {
        buf.write(0, bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_rectangles_are_clamped_to_the_target_and_empty_ones_dropped() {
        let r = |x0, y0, x1, y1| egui::Rect::from_min_max(egui::pos2(x0, y0), egui::pos2(x1, y1));
        let clip = clip_pixels(r(-5.0, 2.0, 50.0, 400.0), 2.0, (64, 36)).expect("inside");
        assert_eq!((clip.offset.x, clip.offset.y, clip.extent.width, clip.extent.height), (0, 4, 64, 32));
        assert!(clip_pixels(r(40.0, 0.0, 50.0, 10.0), 1.0, (32, 32)).is_none(), "right of the target");
        assert!(clip_pixels(r(5.0, 5.0, 5.0, 9.0), 1.0, (32, 32)).is_none(), "zero width");
    }
}
