//! `particles.billboards`: the GPU-simulated particles drawn as camera-point-facing billboards in
//! the alpha pass (`llvopartgroup.cpp`, `lldrawpoolalpha.cpp`; geometry in `billboards.vert`, shading in
//! `billboards.frag`), over the visible list and indirect draw of `particles.cull`.
//!
//! Before drawing, `particles.billboards.depth_copy` turns the opaque depth into linear view depth
//! (an R32F image), which the fragment shader samples for the soft-particle fade while the depth
//! buffer itself stays the pass's depth attachment (test on, write off).
//!
//! Blending: one pipeline per legacy (source, dest) pair in use ([`pipeline`]; made on demand by
//! [`BillboardsPass::prepare`] and cached by pair), RGB with the pair's factors and framebuffer
//! alpha with (ZERO, ONE_MINUS_SRC_ALPHA). With one pair, one indirect draw of the sorted visible
//! list. With several, `particles.batch` cuts the sorted list into runs of one pair and the draws
//! follow the runs (up to [`MAX_RUNS`] slots, each one draw per pipeline of which only the run's
//! own is non-empty), so the far-to-near order holds across pairs as in the viewer; beyond the
//! slots (or 1024 runs) the rest is drawn pair by pair in the order given, particles of other
//! pairs collapsing in the vertex shader (the frame puts pairs whose dest is ONE last).
//!
//! Ribbon particles draw segments to their parents (`billboards.vert`; links from
//! `particles.ribbons`).
//!
//! Glow (`lldrawpoolalpha.cpp`): the same draw writes a second colour attachment, the glow mask
//! `frame.glow` (see [`crate::passes::glow`]), cleared to 0 at the start of the pass and blended
//! independently of the colour with (ONE, ONE_MINUS_SRC_ALPHA) from (texture alpha x glow x soft
//! fade, 0, 0, fragment alpha): mask' = mask (1 - a) + tex_a glow, what the viewer's colour draw
//! (alpha factors ZERO, ONE_MINUS_SRC_ALPHA) and its glow draw (alpha ONE, ONE) leave together.
//!
//! Texture addressing (as the viewer's): the default texture (layer 0) is sampled with clamp addressing
//! (binding 9), custom textures (layers >= 1) with repeat (binding 13, the same array).
//!
//! HUD particles (sources flagged HUD) are drawn by [`BillboardsPass::record_hud`]
//! (`particles.hud`) over the tone-mapped frame in HUD space, as the viewer draws HUD attachments
//! after the world; HUD lighting is not modelled (they are drawn fullbright).

pub mod pipeline;

use std::collections::HashMap;

use ash::vk;

use crate::error::Result;
use crate::fog_gpu::froxel::FroxelFog;
use crate::gpu_types::{BillboardPush, FogUniform, GpuDrawIndirect};
use crate::particle_textures::ParticleTextures;
use crate::passes::opaque::{lighting_bindings, LightInputs, IN_FRAGMENT};
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::graphics::{Attachment, GraphicsPipeline};
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder, Use};
use crate::vk::resource::{Buffer, BufferDesc, Image, ImageDesc, MemoryLocation};
use crate::vk::sampler::Samplers;
use particles::types::blend as bf;
use pipeline::{pair_code, BillboardTarget, BlendPipelineDesc};

use crate::passes::particle_batch::{BatchPass, MAX_RUNS};
use crate::passes::particle_sim::cull::VisibleParticles;

/// The indirect draws of a frame as (pair, command buffer, byte offset): one per pair from
/// `particles.draw_args`, or with batching [`MAX_RUNS`] slots of one command per pair each.
fn draw_list<'b>(
    pairs: &[BlendPair],
    buffer: &'b Buffer,
    batch: Option<&BatchPass>,
) -> Vec<(BlendPair, &'b Buffer, u64)> {
    let command = std::mem::size_of::<GpuDrawIndirect>() as u64;
    let slots = if batch.is_some() { MAX_RUNS } else { 1 };
    (0..u64::from(slots))
        .flat_map(|r| {
            pairs.iter().enumerate().map(move |(p, &pair)| {
                let offset = if batch.is_some() { (r * pairs.len() as u64 + p as u64) * command } else { 0 };
                (pair, buffer, offset)
            })
        })
        .collect()
}

/// The pass name.
pub const NAME: &str = "particles.billboards";
/// The HUD draw's name.
pub const HUD_NAME: &str = "particles.hud";
/// `BillboardPush::blend.w` of the HUD draw.
const DRAW_HUD: u32 = 1;
/// Soft-particle fade distance, m: a billboard fades out over this depth in front of geometry.
pub const SOFT_FADE_M: f32 = 0.5;
/// Workgroup side of the depth copy.
const TILE: u32 = 8;

/// A legacy blend pair: (source, dest) factor enum values.
pub type BlendPair = (u8, u8);

/// Custom blends (neither factor SOURCE_ALPHA) keep even nearly transparent fragments.
pub fn is_custom(pair: BlendPair) -> bool {
    pair.0 != bf::SOURCE_ALPHA && pair.1 != bf::SOURCE_ALPHA
}

/// Pairs that add to what is behind (dest factor ONE): no fog in-scatter is added with them.
pub fn is_additive(pair: BlendPair) -> bool {
    pair.1 == bf::ONE
}

/// The particle buffers the billboards read.
#[derive(Clone, Copy)]
pub struct BillboardParticles<'r> {
    /// The pool, the sorted visible list and its draw arguments.
    pub visible: VisibleParticles<'r>,
    /// `particles.ribbon_parent`: each ribbon particle's parent slot.
    pub ribbon_parent: &'r Buffer,
    /// `particles.emitters`: each source's constants.
    pub emitters: &'r Buffer,
}

/// What one billboard pass draws from and into.
pub struct BillboardInputs<'r> {
    /// The lighting inputs (frame constants, lights, shadow maps, projector textures).
    pub light: LightInputs<'r>,
    /// Samplers.
    pub samplers: &'r Samplers,
    /// The particles after `particles.cull` and `particles.sort`.
    pub particles: BillboardParticles<'r>,
    /// The particle textures.
    pub textures: &'r ParticleTextures,
    /// `particles.fog_sources`: each source's particle-fog weight (its billboards' alpha is scaled by
    /// `1 - weight`; at weight 1 none is drawn).
    pub fog_sources: &'r Buffer,
    /// `fog.brick_march.cloud` when the particle fog was marched this frame: billboards inside or
    /// behind it are attenuated by the part in front of them.
    pub cloud: Option<&'r Image>,
    /// The froxel fog, when on.
    pub fog: Option<&'r FroxelFog>,
    /// Camera forward axis (unit) and near/far planes (m).
    pub camera: (glam::Vec3, f32, f32),
    /// HDR target (blended into).
    pub hdr: &'r Image,
    /// Glow mask target ([`crate::passes::glow::MASK_FORMAT`]; cleared, then blended into), or
    /// none in frames without a glowing source (the mask is then neither cleared nor written).
    pub glow: Option<&'r Image>,
    /// Opaque depth (tested, not written).
    pub depth: &'r Image,
}

/// The billboard pipelines and their private images.
pub struct BillboardsPass {
    pipelines: HashMap<(BlendPair, BillboardTarget), GraphicsPipeline>,
    depth_copy: ComputePipeline,
    linear_depth: Image,
    no_fog_uniform: Buffer,
    no_fog_volume: Image,
    /// The run batching, when the frame has more than one pair.
    batch: Option<BatchPass>,
}

impl BillboardsPass {
    /// Creates the pipelines and a `width` x `height` linear-depth image.
    pub fn new(gpu: &Gpu, width: u32, height: u32) -> Result<Self> {
        let copy_name = crate::names::resource(NAME, "depth_copy");
        let image = |name, kind, format, extent, usage| {
            gpu.create_image(&ImageDesc {
                name,
                kind,
                format,
                extent,
                layers: 1,
                array: false,
                mips: 1,
                usage,
            })
        };
        use vk::ImageUsageFlags as U;
        Ok(BillboardsPass {
            batch: None,
            pipelines: HashMap::new(),
            depth_copy: gpu.create_compute_pipeline(
                &copy_name,
                shaders::PASSES_BILLBOARDS_DEPTH_COPY_COMP,
                std::mem::size_of::<BillboardPush>() as u32,
            )?,
            linear_depth: image(
                "particles.billboards.linear_depth",
                vk::ImageType::TYPE_2D,
                vk::Format::R32_SFLOAT,
                vk::Extent3D { width, height, depth: 1 },
                U::STORAGE | U::SAMPLED,
            )?,
            no_fog_uniform: gpu.create_buffer(&BufferDesc {
                name: "particles.billboards.no_fog",
                size: std::mem::size_of::<FogUniform>() as u64,
                usage: vk::BufferUsageFlags::UNIFORM_BUFFER,
                location: MemoryLocation::CpuToGpu,
            })?,
            no_fog_volume: image(
                "particles.billboards.no_fog_volume",
                vk::ImageType::TYPE_3D,
                vk::Format::R8G8B8A8_UNORM,
                vk::Extent3D { width: 1, height: 1, depth: 1 },
                U::SAMPLED | U::TRANSFER_DST,
            )?,
        })
    }

    /// Makes the pipelines of `pairs` (world; with the glow mask when `glow`) and `hud_pairs`
    /// (HUD) that do not exist yet (outside a submission).
    pub fn prepare(
        &mut self,
        gpu: &Gpu,
        pairs: &[BlendPair],
        hud_pairs: &[BlendPair],
        glow: bool,
    ) -> Result<()> {
        let world = if glow { BillboardTarget::WorldWithGlow } else { BillboardTarget::World };
        let wanted =
            pairs.iter().map(|&p| (p, world)).chain(hud_pairs.iter().map(|&p| (p, BillboardTarget::Hud)));
        for (pair, target) in wanted {
            if self.pipelines.contains_key(&(pair, target)) {
                continue;
            }
            let (name, fragment) = match target {
                BillboardTarget::WorldWithGlow => (NAME, shaders::PASSES_BILLBOARDS_BILLBOARDS_FRAG),
                BillboardTarget::World => (NAME, shaders::PASSES_BILLBOARDS_BILLBOARDS_NO_GLOW_FRAG),
                BillboardTarget::Hud => (HUD_NAME, shaders::PASSES_BILLBOARDS_HUD_FRAG),
            };
            let desc = BlendPipelineDesc {
                name,
                stages: (shaders::PASSES_BILLBOARDS_BILLBOARDS_VERT, fragment),
                push_size: std::mem::size_of::<BillboardPush>() as u32,
                pair,
                target,
            };
            self.pipelines.insert((pair, target), pipeline::create(gpu, &desc)?);
        }
        let codes: Vec<u32> = pairs.iter().copied().map(pair_code).collect();
        if pairs.len() > 1 && !self.batch.as_ref().is_some_and(|b| b.is_for(&codes)) {
            self.batch = Some(BatchPass::new(gpu, &codes)?);
        }
        Ok(())
    }

    /// Records the depth copy, the run batching when `pairs` has more than one pair, and the
    /// indirect draws: one per pair of `pairs`, or [`MAX_RUNS`] x pairs in run order (every
    /// pipeline made by [`BillboardsPass::prepare`] with these `pairs`; otherwise a bug).
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        inp: &BillboardInputs<'_>,
        pairs: &[BlendPair],
    ) -> Result<()> {
        let (forward, near, far) = inp.camera;
        let mut push = BillboardPush {
            forward_soft: forward.extend(SOFT_FADE_M).to_array(),
            planes: [
                near,
                far,
                if inp.fog.is_some() { 1.0 } else { 0.0 },
                if inp.cloud.is_some() { 1.0 } else { 0.0 },
            ],
            blend: [0; 4],
        };
        self.record_depth_copy(rec, inp.depth, inp.samplers.nearest_clamp, &push);
        let codes: Vec<u32> = pairs.iter().copied().map(pair_code).collect();
        let batch = self.batch.as_ref().filter(|b| pairs.len() > 1 && b.is_for(&codes));
        if pairs.len() > 1 && batch.is_none() {
            crate::error::bug(&format!("{NAME}: no batching prepared for pairs {pairs:?}"));
        }
        if let Some(b) = batch {
            b.record(rec, &inp.particles.visible);
        }
        let draw_args = inp.particles.visible.draw_args;
        let draws = draw_list(pairs, batch.map_or(draw_args, |b| &b.commands), batch);
        let mut indirect = vec![Use::Buffer(draw_args, Access::IndirectRead)];
        if let Some(b) = batch {
            indirect.push(Use::Buffer(&b.commands, Access::IndirectRead));
        }
        let color = Attachment { image: inp.hdr, clear: None, layer: None };
        let zero = vk::ClearValue { color: vk::ClearColorValue { float32: [0.0; 4] } };
        let depth = Attachment { image: inp.depth, clear: None, layer: None };
        let (attachments, target) = match inp.glow {
            Some(mask) => {
                let glow = Attachment { image: mask, clear: Some(zero), layer: None };
                (vec![color, glow], BillboardTarget::WorldWithGlow)
            }
            None => (vec![color], BillboardTarget::World),
        };
        let bindings = self.bindings(inp);
        rec.render(NAME, &attachments, Some(depth), &bindings, &indirect, |rec| {
            self.issue_draws(rec, &bindings, &mut push, target, &draws);
        })
    }

    /// The indirect `draws` with the `target` pipelines of their pairs, binding a pipeline (with
    /// `push`, its blend words set for the pair) only when the pair changes.
    fn issue_draws(
        &self,
        rec: &Recorder<'_>,
        bindings: &[Binding<'_>],
        push: &mut BillboardPush,
        target: BillboardTarget,
        draws: &[(BlendPair, &Buffer, u64)],
    ) {
        let draw_kind = if target == BillboardTarget::Hud { DRAW_HUD } else { 0 };
        let mut bound = None;
        for &(pair, buffer, offset) in draws {
            let Some(pipe) = self.pipelines.get(&(pair, target)) else {
                crate::error::bug(&format!("{NAME}: no {target:?} pipeline for blend pair {pair:?}"))
            };
            if bound != Some(pair) {
                push.blend =
                    [pair_code(pair), u32::from(is_custom(pair)), u32::from(is_additive(pair)), draw_kind];
                rec.bind_graphics(pipe, bindings, bytemuck::bytes_of(push));
                bound = Some(pair);
            }
            let stride = std::mem::size_of::<GpuDrawIndirect>() as u32;
            // SAFETY: a graphics pipeline is bound inside a rendering instance; `buffer` is alive,
            // has INDIRECT_BUFFER usage and holds a command at `offset` (declared IndirectRead).
            unsafe { rec.device().cmd_draw_indirect(rec.cmd, buffer.raw, offset, 1, stride) };
        }
    }

    /// Records `particles.hud`: the HUD particles over the tone-mapped `ldr` frame, one indirect
    /// draw of the sorted visible list per pair of `hud_pairs` (each made by
    /// [`BillboardsPass::prepare`]), after [`BillboardsPass::record`] of the same frame.
    pub fn record_hud(
        &self,
        rec: &mut Recorder<'_>,
        inp: &BillboardInputs<'_>,
        ldr: &Image,
        hud_pairs: &[BlendPair],
    ) -> Result<()> {
        let target = Attachment { image: ldr, clear: None, layer: None };
        let bindings = self.bindings(inp);
        let draw_args = inp.particles.visible.draw_args;
        let indirect = [Use::Buffer(draw_args, Access::IndirectRead)];
        let draws = draw_list(hud_pairs, draw_args, None);
        let mut push = BillboardPush { forward_soft: [0.0; 4], planes: [0.0; 4], blend: [0; 4] };
        rec.render(HUD_NAME, &[target], None, &bindings, &indirect, |rec| {
            self.issue_draws(rec, &bindings, &mut push, BillboardTarget::Hud, &draws);
        })
    }

    /// The froxel fog's uniform and integrated volume, or stand-ins when the fog is off.
    fn fog_inputs<'r>(&'r self, inp: &BillboardInputs<'r>) -> (&'r Buffer, &'r Image) {
        inp.fog.map_or((&self.no_fog_uniform, &self.no_fog_volume), |f| (&f.uniform, &f.integrated))
    }

    /// The draw's bindings: lighting 0..5, pool, visible, source layers, textures (clamp), fog
    /// uniform, integrated fog, linear depth, textures (repeat), ribbon parents, emitters,
    /// particle-fog sources, particle-fog cloud.
    fn bindings<'r>(&'r self, inp: &BillboardInputs<'r>) -> Vec<Binding<'r>> {
        let (vertex, fragment) = (Access::VertexRead, Access::FragmentRead);
        let (fog_uniform, fog_volume) = self.fog_inputs(inp);
        let (p, s) = (inp.particles, inp.samplers);
        let mut bindings = lighting_bindings(&inp.light, s, IN_FRAGMENT).to_vec();
        bindings.extend([
            Binding::Storage(p.visible.pool, vertex),
            Binding::Storage(p.visible.visible, vertex),
            Binding::Storage(&inp.textures.source_layers, vertex),
            Binding::Sampled(&inp.textures.image, s.trilinear_clamp, fragment),
            Binding::Uniform(fog_uniform),
            Binding::Sampled(fog_volume, s.linear_clamp, fragment),
            Binding::Sampled(&self.linear_depth, s.nearest_clamp, fragment),
            Binding::Sampled(&inp.textures.image, s.trilinear_repeat, fragment),
            Binding::Storage(p.ribbon_parent, vertex),
            Binding::Storage(p.emitters, vertex),
            Binding::Storage(inp.fog_sources, vertex),
            Binding::Sampled(inp.cloud.unwrap_or(&self.linear_depth), s.nearest_clamp, fragment),
        ]);
        bindings
    }

    fn record_depth_copy(
        &self,
        rec: &mut Recorder<'_>,
        depth: &Image,
        sampler: vk::Sampler,
        push: &BillboardPush,
    ) {
        let name = crate::names::resource(NAME, "depth_copy");
        let bindings = [
            Binding::Sampled(depth, sampler, Access::ComputeSampled),
            Binding::StorageImage(&self.linear_depth, Access::ComputeWrite),
        ];
        let (w, h) = (self.linear_depth.extent.width, self.linear_depth.extent.height);
        let groups = Groups::Direct([w.div_ceil(TILE), h.div_ceil(TILE), 1]);
        rec.compute(&name, &self.depth_copy, &bindings, bytemuck::bytes_of(push), groups);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_and_additive_pairs_are_recognised() {
        assert!(!is_custom((7, 9)) && !is_additive((7, 9)));
        assert!(!is_custom((7, 0)) && is_additive((7, 0)));
        assert!(is_custom((0, 0)) && is_additive((0, 0)));
        assert!(is_custom((2, 1)), "DEST_COLOR, ZERO: a custom (multiplicative) blend");
        assert!(!is_custom((0, 7)), "a SOURCE_ALPHA dest keeps the threshold");
    }
}
