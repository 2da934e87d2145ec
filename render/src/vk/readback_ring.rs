//! Readbacks with frames in flight: a ring of host-visible buffers, one per frame in flight and
//! two more, taken in turn by frame serial, so a frame's copy never lands in a buffer that holds
//! a completed frame the CPU has yet to read. The CPU reads the newest copy whose frame has
//! completed (counters for the next frames' budgets and demotion, stats): with submissions that
//! wait, the frame just submitted; with frames in flight, the newest one reported completed
//! (N frames of latency). A completed frame's buffer is taken again by the frame two after the
//! newest in flight, so reading it right after the frames that followed it were submitted is safe.

use ash::vk;

use super::context::Gpu;
use super::recorder::Recorder;
use super::resource::{Buffer, BufferDesc, MemoryLocation};
use crate::error::Result;

/// Buffers beyond the frames in flight.
const SPARE_BUFFERS: usize = 2;

/// Readback buffers of one size, taken in turn by frame.
pub struct ReadbackRing {
    buffers: Vec<Buffer>,
    /// Per buffer: the serial of the frame whose copy it holds and the caller's tag, until read.
    pending: Vec<Option<(u64, u32)>>,
}

impl ReadbackRing {
    /// `size`-byte readback buffers named `<name>.<i>`, as many as `gpu` keeps frames in flight
    /// and two more.
    pub fn new(gpu: &Gpu, name: &str, size: u64) -> Result<ReadbackRing> {
        let buffers = (0..gpu.frames_in_flight() + SPARE_BUFFERS)
            .map(|i| {
                gpu.create_buffer(&BufferDesc {
                    name: &format!("{name}.{i}"),
                    size,
                    usage: vk::BufferUsageFlags::TRANSFER_DST,
                    location: MemoryLocation::GpuToCpu,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let pending = vec![None; buffers.len()];
        Ok(ReadbackRing { buffers, pending })
    }

    /// The buffer the frame `rec` records its copy into, marked as holding that frame's copy.
    pub fn target(&mut self, rec: &Recorder<'_>) -> &Buffer {
        self.target_tagged(rec, 0)
    }

    /// As [`ReadbackRing::target`], with `tag`: what the reader needs to know about the copy
    /// (e.g. which list it counted).
    pub fn target_tagged(&mut self, rec: &Recorder<'_>, tag: u32) -> &Buffer {
        let serial = rec.serial();
        let index = (serial % self.buffers.len() as u64) as usize;
        self.pending[index] = Some((serial, tag));
        &self.buffers[index]
    }

    /// The newest copy whose frame has completed, with its tag, read once: later calls return
    /// newer copies only (`None` until one completes). Older completed copies are dropped.
    pub fn take_latest(&mut self, gpu: &Gpu) -> Option<(Vec<u8>, u32)> {
        let (serial, index) = self.latest_completed(gpu)?;
        let (_, tag) = self.pending[index]?;
        for p in &mut self.pending {
            if p.is_some_and(|(s, _)| s <= serial) {
                *p = None;
            }
        }
        Some((self.buffers[index].read(), tag))
    }

    /// The newest completed copy, without marking it read (`None` while none is unread).
    pub fn peek_latest(&self, gpu: &Gpu) -> Option<Vec<u8>> {
        self.latest_completed(gpu).map(|(_, index)| self.buffers[index].read())
    }

    /// The serial and buffer of the newest unread completed copy.
    fn latest_completed(&self, gpu: &Gpu) -> Option<(u64, usize)> {
        self.pending
            .iter()
            .enumerate()
            .filter_map(|(index, p)| p.map(|(serial, _)| (serial, index)))
            .filter(|&(serial, _)| gpu.frame_done(serial))
            .max()
    }
}
