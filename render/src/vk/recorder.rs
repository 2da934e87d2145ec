//! Command recording with barriers derived from declared accesses (STYLE.md practice 3).
//!
//! A pass states what it reads and writes ([`Use`]); [`Recorder::pass`] emits the
//! synchronization2 barriers (and image layout transitions) those uses need against each
//! resource's previous accesses, opens a debug label and a timestamp scope under the pass name,
//! then records the pass body. Nothing else in the frame places barriers by hand.
//!
//! The tracked state outlives a submission (the next frame's barriers start from it), so the
//! recorder keeps a [`Journal`] of each resource's state before its first use in the submission:
//! when recording or submitting fails, nothing ran on the GPU and `Gpu::submit` puts every tracked
//! state back as it was before the frame.

use ash::vk;

use super::context::Shared;
use super::profiler::Profiler;
use super::resource::{Buffer, Image, SharedState, TrackedState};

/// How a pass touches a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Not touched yet.
    None,
    /// Storage buffer/image read in a compute shader.
    ComputeRead,
    /// Uniform buffer read in any shader stage (a staged uniform: written by the recorder in the
    /// command stream).
    UniformRead,
    /// Sampled image read in a compute shader.
    ComputeSampled,
    /// Storage write (or read-write) in a compute shader.
    ComputeWrite,
    /// Storage buffer read in a vertex shader.
    VertexRead,
    /// Sampled or storage read in a fragment shader.
    FragmentRead,
    /// Indirect draw or dispatch arguments.
    IndirectRead,
    /// Colour attachment, written (and blended).
    ColorAttachment,
    /// Depth attachment, tested and written.
    DepthAttachment,
    /// Depth attachment, tested but not written (and samplable).
    DepthRead,
    /// Copy source.
    TransferRead,
    /// Copy destination or clear.
    TransferWrite,
    /// Read back by the CPU after the submission.
    HostRead,
}

impl Access {
    fn stage(self) -> vk::PipelineStageFlags2 {
        use vk::PipelineStageFlags2 as S;
        match self {
            Access::None => S::NONE,
            Access::ComputeRead | Access::ComputeSampled | Access::ComputeWrite => S::COMPUTE_SHADER,
            Access::UniformRead => S::VERTEX_SHADER | S::FRAGMENT_SHADER | S::COMPUTE_SHADER,
            Access::VertexRead => S::VERTEX_SHADER,
            Access::FragmentRead => S::FRAGMENT_SHADER,
            Access::IndirectRead => S::DRAW_INDIRECT,
            Access::ColorAttachment => S::COLOR_ATTACHMENT_OUTPUT,
            Access::DepthAttachment | Access::DepthRead => S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            Access::TransferRead | Access::TransferWrite => S::ALL_TRANSFER,
            Access::HostRead => S::HOST,
        }
    }

    fn access(self) -> vk::AccessFlags2 {
        use vk::AccessFlags2 as A;
        match self {
            Access::None => A::NONE,
            Access::ComputeRead | Access::VertexRead => A::SHADER_STORAGE_READ,
            Access::UniformRead => A::UNIFORM_READ,
            Access::ComputeSampled => A::SHADER_SAMPLED_READ,
            Access::FragmentRead => A::SHADER_SAMPLED_READ | A::SHADER_STORAGE_READ,
            Access::ComputeWrite => A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE,
            Access::IndirectRead => A::INDIRECT_COMMAND_READ,
            Access::ColorAttachment => A::COLOR_ATTACHMENT_READ | A::COLOR_ATTACHMENT_WRITE,
            Access::DepthAttachment => A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
            Access::DepthRead => A::DEPTH_STENCIL_ATTACHMENT_READ | A::SHADER_SAMPLED_READ,
            Access::TransferRead => A::TRANSFER_READ,
            Access::TransferWrite => A::TRANSFER_WRITE,
            Access::HostRead => A::HOST_READ,
        }
    }

    /// The image layout this access needs.
    pub(crate) fn layout(self) -> vk::ImageLayout {
        use vk::ImageLayout as L;
        match self {
            Access::None => L::UNDEFINED,
            Access::ComputeRead | Access::ComputeWrite => L::GENERAL,
            Access::ComputeSampled | Access::FragmentRead => L::SHADER_READ_ONLY_OPTIMAL,
            Access::VertexRead | Access::IndirectRead | Access::HostRead | Access::UniformRead => L::GENERAL,
            Access::ColorAttachment => L::COLOR_ATTACHMENT_OPTIMAL,
            Access::DepthAttachment => L::DEPTH_ATTACHMENT_OPTIMAL,
            Access::DepthRead => L::DEPTH_READ_ONLY_OPTIMAL,
            Access::TransferRead => L::TRANSFER_SRC_OPTIMAL,
            Access::TransferWrite => L::TRANSFER_DST_OPTIMAL,
        }
    }

    /// True when the access may write.
    pub fn is_write(self) -> bool {
        matches!(
            self,
            Access::ComputeWrite | Access::ColorAttachment | Access::DepthAttachment | Access::TransferWrite
        )
    }
}

/// One resource a pass uses, and how.
#[derive(Clone, Copy)]
pub enum Use<'r> {
    /// A buffer.
    Buffer(&'r Buffer, Access),
    /// An image (all layers).
    Image(&'r Image, Access),
}

/// Records one command buffer.
pub struct Recorder<'a> {
    shared: &'a Shared,
    /// The command buffer being recorded.
    pub cmd: vk::CommandBuffer,
    /// The frame's serial ([`crate::vk::frames`]).
    serial: u64,
    profiler: &'a mut Profiler,
    /// Image views made for this submission, destroyed once it has completed.
    deferred_views: Vec<vk::ImageView>,
    /// The tracked states this submission changed, as they were before it.
    journal: Journal,
}

/// The state of every resource a submission touched, as it was before its first use there.
#[derive(Default)]
pub(crate) struct Journal {
    /// (the resource's state, its state before the submission), one entry per resource.
    before: Vec<(SharedState, TrackedState)>,
    /// The states noted, by address.
    noted: std::collections::HashSet<usize>,
}

impl Journal {
    /// Notes `state` as it is now, unless it was noted already.
    fn note(&mut self, state: &SharedState) {
        if self.noted.insert(std::sync::Arc::as_ptr(state) as usize) {
            self.before.push((state.clone(), *state.lock()));
        }
    }

    /// Puts every noted state back as it was before the submission (which never ran).
    pub(crate) fn roll_back(self) {
        for (state, before) in self.before {
            *state.lock() = before;
        }
    }
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(
        shared: &'a Shared,
        (cmd, serial): (vk::CommandBuffer, u64),
        profiler: &'a mut Profiler,
    ) -> Self {
        Recorder { shared, cmd, serial, profiler, deferred_views: Vec::new(), journal: Journal::default() }
    }

    /// The serial of the frame being recorded: readbacks of it may be read once
    /// [`crate::Gpu::frame_done`] says so.
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// Keeps `views` alive until the submission completes.
    pub(crate) fn defer_destroy_views(&mut self, views: Vec<vk::ImageView>) {
        self.deferred_views.extend(views);
    }

    /// The views to destroy after the submission completes, and the journal of the states it
    /// changed.
    pub(crate) fn into_parts(self) -> (Vec<vk::ImageView>, Journal) {
        (self.deferred_views, self.journal)
    }

    /// The device, for recording raw commands inside a pass body.
    pub fn device(&self) -> &ash::Device {
        &self.shared.device
    }

    pub(crate) fn shared(&self) -> &Shared {
        self.shared
    }

    /// Records a pass: barriers for `uses`, a debug label and timestamp scope named `name`, then
    /// `body`.
    pub fn pass<T>(&mut self, name: &str, uses: &[Use<'_>], body: impl FnOnce(&Recorder<'a>) -> T) -> T {
        self.labelled(name, uses, true, body)
    }

    /// Records set-up work that runs once (a new resource's first contents) as [`Recorder::pass`]
    /// does, barriers and debug label included, but untimed: timed in one frame of many it would
    /// read as a per-frame cost in the timing table.
    pub fn setup<T>(&mut self, name: &str, uses: &[Use<'_>], body: impl FnOnce(&Recorder<'a>) -> T) -> T {
        self.labelled(name, uses, false, body)
    }

    /// Barriers for `uses`, a debug label named `name` (and, when `timed`, a timestamp scope of
    /// that name), then `body`.
    fn labelled<T>(
        &mut self,
        name: &str,
        uses: &[Use<'_>],
        timed: bool,
        body: impl FnOnce(&Recorder<'a>) -> T,
    ) -> T {
        self.barriers(uses);
        let label = std::ffi::CString::new(name).unwrap_or_default();
        let info = vk::DebugUtilsLabelEXT::default().label_name(&label);
        // SAFETY: `cmd` is recording; the label string outlives the call.
        unsafe { self.shared.debug_utils.cmd_begin_debug_utils_label(self.cmd, &info) };
        if timed {
            self.profiler.begin_scope(self.shared, self.cmd, name);
        }
        let out = body(self);
        if timed {
            self.profiler.end_scope(self.shared, self.cmd);
        }
        // SAFETY: closes the label opened above, in the same command buffer.
        unsafe { self.shared.debug_utils.cmd_end_debug_utils_label(self.cmd) };
        out
    }

    /// Clears every layer of a colour image, as a pass named `<image>.clear`.
    pub fn clear_color(&mut self, img: &Image, rgba: [f32; 4]) {
        let name = crate::names::resource(&img.name, "clear");
        self.pass(&name, &[Use::Image(img, Access::TransferWrite)], |rec| {
            let value = vk::ClearColorValue { float32: rgba };
            // SAFETY: the image is alive and in TRANSFER_DST_OPTIMAL (declared above).
            unsafe {
                rec.device().cmd_clear_color_image(
                    rec.cmd,
                    img.raw,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &value,
                    &[img.range()],
                )
            };
        });
    }

    /// Copies `size` bytes from the start of `src` to the start of `dst`. A body-level command: the
    /// enclosing pass declares `src` as `TransferRead` and `dst` as `TransferWrite`.
    pub fn copy_buffer(&self, src: &Buffer, dst: &Buffer, size: u64) {
        if size > src.size || size > dst.size {
            crate::error::bug(&format!("copy of {size} bytes from {} to {}", src.name, dst.name));
        }
        let region = vk::BufferCopy::default().size(size);
        // SAFETY: both buffers are alive and at least `size` bytes long (checked above); the
        // enclosing pass's declared uses provide the synchronisation.
        unsafe { self.device().cmd_copy_buffer(self.cmd, src.raw, dst.raw, &[region]) };
    }

    /// Copies tightly packed texels of every mip level (level after level, each layer after layer)
    /// from the start of `src` into `dst` (its colour or depth aspect). A body-level command: the
    /// enclosing pass declares `src` as `TransferRead` and `dst` as `TransferWrite`.
    pub fn copy_buffer_to_image(&self, src: &Buffer, dst: &Image, texel_bytes: u64) {
        if crate::vk::readback::image_bytes(dst, texel_bytes) > src.size {
            crate::error::bug(&format!("copy of {} into {}: too small", src.name, dst.name));
        }
        let mut offset = 0;
        let regions: Vec<vk::BufferImageCopy> = (0..dst.mips)
            .map(|level| {
                let layers = vk::ImageSubresourceLayers::default()
                    .aspect_mask(dst.aspect())
                    .mip_level(level)
                    .layer_count(dst.layers);
                let region = vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .image_subresource(layers)
                    .image_extent(dst.mip_extent(level));
                offset += dst.level_bytes(level, texel_bytes);
                region
            })
            .collect();
        // SAFETY: both are alive, the buffer holds the whole extent (checked above) and the image is
        // in TRANSFER_DST_OPTIMAL through the enclosing pass's declared use.
        unsafe {
            self.device().cmd_copy_buffer_to_image(
                self.cmd,
                src.raw,
                dst.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            )
        };
    }

    /// Writes `words` at the start of `buf` in the command stream (vkCmdUpdateBuffer; at most 64 KiB),
    /// as a pass named `<buffer>.update`.
    pub fn update_buffer(&mut self, buf: &Buffer, words: &[u32]) {
        let bytes: &[u8] = bytemuck::cast_slice(words);
        if bytes.len() as u64 > buf.size || bytes.len() > 65_536 {
            crate::error::bug(&format!("update of {} bytes into {}", bytes.len(), buf.name));
        }
        let name = crate::names::resource(&buf.name, "update");
        self.pass(&name, &[Use::Buffer(buf, Access::TransferWrite)], |rec| {
            // SAFETY: the buffer is alive, at least `bytes.len()` long (checked), with TRANSFER_DST
            // usage (the caller's); the declared use synchronises it.
            unsafe { rec.device().cmd_update_buffer(rec.cmd, buf.raw, 0, bytes) };
        });
    }

    /// Fills the whole of `buf` with `value` (vkCmdFillBuffer), as a pass named `<buffer>.fill`.
    pub fn fill_buffer(&mut self, buf: &Buffer, value: u32) {
        let name = crate::names::resource(&buf.name, "fill");
        self.pass(&name, &[Use::Buffer(buf, Access::TransferWrite)], |rec| {
            // SAFETY: the buffer is alive with TRANSFER_DST usage (the caller's); the declared use
            // synchronises it.
            unsafe { rec.device().cmd_fill_buffer(rec.cmd, buf.raw, 0, vk::WHOLE_SIZE, value) };
        });
    }

    /// Copies `(source offset, destination offset, bytes)` regions from `src` to `dst`. A
    /// body-level command: the enclosing pass declares `src` as `TransferRead` and `dst` as
    /// `TransferWrite`.
    pub fn copy_buffer_regions(&self, src: &Buffer, dst: &Buffer, regions: &[(u64, u64, u64)]) {
        if regions.iter().any(|&(s, d, n)| s + n > src.size || d + n > dst.size) {
            crate::error::bug(&format!("copy of {regions:?} from {} to {}", src.name, dst.name));
        }
        let regions: Vec<vk::BufferCopy> = regions
            .iter()
            .map(|&(s, d, n)| vk::BufferCopy::default().src_offset(s).dst_offset(d).size(n))
            .collect();
        // SAFETY: both buffers are alive and hold every region (checked above); the enclosing
        // pass's declared uses provide the synchronisation.
        unsafe { self.device().cmd_copy_buffer(self.cmd, src.raw, dst.raw, &regions) };
    }

    /// Notes `state` in the journal before a change made outside [`Recorder::barriers`].
    pub(crate) fn note_state(&mut self, state: &SharedState) {
        self.journal.note(state);
    }

    /// Emits one image barrier built elsewhere in this module tree (a hand-back to a host).
    pub(crate) fn image_barrier(&mut self, barrier: vk::ImageMemoryBarrier2<'_>) {
        let barriers = [barrier];
        let dep = vk::DependencyInfo::default().image_memory_barriers(&barriers);
        // SAFETY: `cmd` is recording outside a render pass instance; the barrier names a live image.
        unsafe { self.shared.device.cmd_pipeline_barrier2(self.cmd, &dep) };
    }

    /// Emits the barriers `uses` need (also usable outside a pass, e.g. before readback), after
    /// writing into the command stream the host's changes to the staged buffers among them.
    pub fn barriers(&mut self, uses: &[Use<'_>]) {
        self.flush_staged(uses);
        self.barriers_only(uses);
    }

    /// Writes the changed bytes of every staged buffer in `uses` (vkCmdUpdateBuffer), each after
    /// a barrier against the GPU's earlier uses of it.
    fn flush_staged(&mut self, uses: &[Use<'_>]) {
        let dirty: Vec<&Buffer> = uses
            .iter()
            .filter_map(|u| match *u {
                Use::Buffer(b, _) if b.staged_dirty() => Some(b),
                _ => None,
            })
            .collect();
        if dirty.is_empty() {
            return;
        }
        let writes: Vec<Use<'_>> = dirty.iter().map(|b| Use::Buffer(b, Access::TransferWrite)).collect();
        self.barriers_only(&writes);
        for buf in dirty {
            buf.take_staged(|offset, bytes| {
                // SAFETY: `cmd` is recording outside a render pass instance; the buffer is alive
                // with TRANSFER_DST usage (staged buffers get it) and holds `offset + len` bytes
                // (whole words of its rounded size); the barrier above orders it after earlier uses.
                unsafe { self.shared.device.cmd_update_buffer(self.cmd, buf.raw, offset, bytes) };
            });
        }
    }

    /// The barriers of `uses`, without flushing staged buffers.
    fn barriers_only(&mut self, uses: &[Use<'_>]) {
        let mut buffers = Vec::new();
        let mut images = Vec::new();
        for u in uses {
            match *u {
                Use::Buffer(b, access) => {
                    self.journal.note(&b.state);
                    if let Some((src, dst)) = transition(&mut b.state.lock(), access, false) {
                        buffers.push(
                            vk::BufferMemoryBarrier2::default()
                                .src_stage_mask(src.0)
                                .src_access_mask(src.1)
                                .dst_stage_mask(dst.0)
                                .dst_access_mask(dst.1)
                                .buffer(b.raw)
                                .offset(0)
                                .size(vk::WHOLE_SIZE),
                        );
                    }
                }
                Use::Image(img, access) => {
                    self.journal.note(&img.state);
                    let mut state = img.state.lock();
                    let old_layout = state.layout;
                    if let Some((src, dst)) = transition(&mut state, access, true) {
                        images.push(
                            vk::ImageMemoryBarrier2::default()
                                .src_stage_mask(src.0)
                                .src_access_mask(src.1)
                                .dst_stage_mask(dst.0)
                                .dst_access_mask(dst.1)
                                .old_layout(old_layout)
                                .new_layout(access.layout())
                                .image(img.raw)
                                .subresource_range(img.range()),
                        );
                    }
                }
            }
        }
        if buffers.is_empty() && images.is_empty() {
            return;
        }
        let dep =
            vk::DependencyInfo::default().buffer_memory_barriers(&buffers).image_memory_barriers(&images);
        // SAFETY: `cmd` is recording outside a render pass instance (passes begin dynamic rendering
        // inside their body, after barriers); the barriers reference live resources.
        unsafe { self.shared.device.cmd_pipeline_barrier2(self.cmd, &dep) };
    }
}

pub(crate) type StageAccess = (vk::PipelineStageFlags2, vk::AccessFlags2);

const NOTHING: StageAccess = (vk::PipelineStageFlags2::NONE, vk::AccessFlags2::NONE);

/// Updates `state` for a new `access` and returns the (src, dst) scopes of the barrier it needs.
///
/// Reads after a write wait for that write once per reading stage; a write waits for the previous
/// write (execution and memory) and for every read since it (execution only); an image layout
/// change always transitions.
fn transition(
    state: &mut TrackedState,
    access: Access,
    is_image: bool,
) -> Option<(StageAccess, StageAccess)> {
    let dst = (access.stage(), access.access());
    let layout_change = is_image && state.layout != access.layout();
    if is_image {
        state.layout = access.layout();
    }
    if layout_change || access.is_write() {
        let src = (state.write.0 | state.reads.0, state.write.1);
        if access.is_write() {
            state.write = dst;
            state.reads = NOTHING;
        } else {
            // The layout transition is itself a write, ordered before `dst`'s stages: readers in
            // other stages must chain after those stages.
            state.write = (dst.0, vk::AccessFlags2::NONE);
            state.reads = dst;
        }
        let first_use = src.0.is_empty();
        return (layout_change || !first_use).then_some((src, dst));
    }
    let synced = state.reads.0.contains(dst.0) && state.reads.1.contains(dst.1);
    state.reads = (state.reads.0 | dst.0, state.reads.1 | dst.1);
    (!state.write.0.is_empty() && !synced).then_some((state.write, dst))
}

impl TrackedState {
    /// A resource nobody has touched yet.
    pub(crate) fn untouched() -> Self {
        TrackedState { write: NOTHING, reads: NOTHING, layout: vk::ImageLayout::UNDEFINED }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer_sequence(accesses: &[Access]) -> Vec<bool> {
        let mut state = TrackedState::untouched();
        accesses.iter().map(|a| transition(&mut state, *a, false).is_some()).collect()
    }

    #[test]
    fn first_write_needs_no_barrier_but_a_second_write_does() {
        assert_eq!(buffer_sequence(&[Access::ComputeWrite, Access::ComputeWrite]), [false, true]);
    }

    #[test]
    fn reads_wait_once_per_stage_for_the_last_write() {
        let got = buffer_sequence(&[
            Access::ComputeWrite,
            Access::ComputeRead,
            Access::ComputeRead,
            Access::VertexRead,
            Access::TransferRead,
        ]);
        assert_eq!(got, [false, true, false, true, true]);
    }

    #[test]
    fn a_write_after_reads_waits_for_every_reading_stage() {
        let mut state = TrackedState::untouched();
        transition(&mut state, Access::ComputeWrite, false);
        transition(&mut state, Access::VertexRead, false);
        transition(&mut state, Access::FragmentRead, false);
        let (src, dst) = transition(&mut state, Access::TransferWrite, false).expect("barrier");
        assert!(src.0.contains(vk::PipelineStageFlags2::COMPUTE_SHADER));
        assert!(src.0.contains(vk::PipelineStageFlags2::VERTEX_SHADER));
        assert!(src.0.contains(vk::PipelineStageFlags2::FRAGMENT_SHADER));
        assert_eq!(src.1, vk::AccessFlags2::SHADER_STORAGE_READ | vk::AccessFlags2::SHADER_STORAGE_WRITE);
        assert_eq!(dst.0, vk::PipelineStageFlags2::ALL_TRANSFER);
    }

    #[test]
    fn reads_without_a_prior_write_need_nothing() {
        assert_eq!(buffer_sequence(&[Access::ComputeRead, Access::FragmentRead]), [false, false]);
    }

    #[test]
    fn image_layout_changes_always_transition() {
        let mut state = TrackedState::untouched();
        assert!(transition(&mut state, Access::ComputeSampled, true).is_some(), "UNDEFINED -> READ_ONLY");
        assert!(transition(&mut state, Access::ComputeSampled, true).is_none(), "same layout, same stage");
        assert!(transition(&mut state, Access::TransferRead, true).is_some(), "READ_ONLY -> TRANSFER_SRC");
        assert_eq!(state.layout, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
    }

    #[test]
    fn a_read_in_another_stage_after_a_read_only_transition_chains_after_it() {
        let mut state = TrackedState::untouched();
        transition(&mut state, Access::DepthAttachment, true);
        assert!(transition(&mut state, Access::FragmentRead, true).is_some(), "ATTACHMENT -> READ_ONLY");
        let (src, dst) = transition(&mut state, Access::ComputeSampled, true).expect("compute must wait too");
        assert_eq!(src.0, vk::PipelineStageFlags2::FRAGMENT_SHADER);
        assert_eq!(dst.0, vk::PipelineStageFlags2::COMPUTE_SHADER);
        assert!(transition(&mut state, Access::ComputeSampled, true).is_none(), "already synchronised");
    }
}
