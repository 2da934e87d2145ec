//! Frames in flight: which frame slots the GPU may still be running, and the retire queue that
//! keeps every resource dropped meanwhile alive until no frame that could use it is in flight.
//!
//! A host that runs N frames in flight records frame `k` into slot `k mod N` and, once that
//! slot's fence has signalled, says so ([`crate::Gpu::frame_completed`]). Each recorded frame gets
//! a serial; a resource dropped after frame `s` was recorded carries `s`, and is destroyed when
//! every frame in flight is newer than `s` (or none is in flight). With nothing in flight, as in
//! [`crate::Gpu::submit`], which waits for its work, a dropped resource is destroyed at once.
//! (The same bookkeeping as NVIDIA NRD's buffered frames, with FidelityFX's rule that the host
//! owns the fences.)

use ash::vk;

/// A Vulkan object waiting for the frames that may use it.
pub(crate) enum Retired {
    /// A buffer and its vk-mem allocation.
    Buffer(vk::Buffer, vk_mem::Allocation),
    /// An image this crate made and its allocation, and its view (null when it has none).
    Image(vk::Image, vk_mem::Allocation, vk::ImageView),
    /// A view (of a host's image, or made for one submission).
    View(vk::ImageView),
    /// A pipeline, its layout and its descriptor set layout.
    Pipeline(vk::Pipeline, vk::PipelineLayout, vk::DescriptorSetLayout),
}

/// The state of frame slots and the retire queue (one per device, behind a mutex).
#[derive(Default)]
pub(crate) struct FrameClock {
    /// The serial of the last frame recorded (0: none yet).
    recorded: u64,
    /// Per slot: the serial of the frame recorded into it and not completed yet.
    in_flight: Vec<Option<u64>>,
    /// Objects dropped while frames were in flight, with the last serial recorded then.
    retired: Vec<(u64, Retired)>,
    /// The newest serials whose recording failed: they never ran.
    abandoned: Vec<u64>,
}

/// How many failed recordings [`FrameClock::abandoned`] remembers (more than any readback ring
/// looks back).
const ABANDONED_KEPT: usize = 8;

/// Why a slot cannot be recorded or completed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SlotError {
    /// The slot is not below the number of slots.
    OutOfRange,
    /// A frame recorded into it has not been completed.
    Busy,
}

impl FrameClock {
    /// A clock for `slots` frame slots.
    pub fn new(slots: usize) -> Self {
        FrameClock { recorded: 0, in_flight: vec![None; slots], retired: Vec::new(), abandoned: Vec::new() }
    }

    /// A serial for a submission that is waited for at once (never in flight).
    pub fn begin_waited(&mut self) -> u64 {
        self.recorded += 1;
        self.recorded
    }

    /// Whether frame `serial` was recorded, ran and completed (or was waited for).
    pub fn completed(&self, serial: u64) -> bool {
        serial <= self.recorded
            && !self.in_flight.contains(&Some(serial))
            && !self.abandoned.contains(&serial)
    }

    /// Marks `slot`'s frame as never submitted (its recording failed), then frees the slot as
    /// [`FrameClock::complete`] does.
    pub fn abandon(&mut self, slot: usize) -> Result<Vec<Retired>, SlotError> {
        if let Some(&Some(serial)) = self.in_flight.get(slot) {
            self.abandon_serial(serial);
        }
        self.complete(slot)
    }

    /// Marks frame `serial` as never submitted.
    pub fn abandon_serial(&mut self, serial: u64) {
        self.abandoned.push(serial);
        if self.abandoned.len() > ABANDONED_KEPT {
            self.abandoned.remove(0);
        }
    }

    /// Whether a frame recorded into `slot` is not completed yet.
    pub fn busy(&self, slot: usize) -> bool {
        self.in_flight.get(slot).is_some_and(Option::is_some)
    }

    /// Starts recording a frame into `slot`: it is in flight from now on (so that anything
    /// dropped while it is recorded waits for it). Returns its serial.
    pub fn begin(&mut self, slot: usize) -> Result<u64, SlotError> {
        match self.in_flight.get(slot) {
            None => Err(SlotError::OutOfRange),
            Some(Some(_)) => Err(SlotError::Busy),
            Some(None) => {
                self.recorded += 1;
                self.in_flight[slot] = Some(self.recorded);
                Ok(self.recorded)
            }
        }
    }

    /// Marks `slot` completed (or, after a failed recording, never submitted) and returns the
    /// objects no frame in flight can use any more.
    pub fn complete(&mut self, slot: usize) -> Result<Vec<Retired>, SlotError> {
        let entry = self.in_flight.get_mut(slot).ok_or(SlotError::OutOfRange)?;
        *entry = None;
        Ok(self.releasable())
    }

    /// Queues `item` behind the frames in flight, or hands it back when none is.
    pub fn retire(&mut self, item: Retired) -> Option<Retired> {
        if self.in_flight.iter().all(Option::is_none) {
            return Some(item);
        }
        self.retired.push((self.recorded, item));
        None
    }

    /// Every queued object, whatever is in flight (the device is idle or going away).
    pub fn drain(&mut self) -> Vec<Retired> {
        self.retired.drain(..).map(|(_, item)| item).collect()
    }

    /// Objects waiting in the queue.
    pub fn waiting(&self) -> usize {
        self.retired.len()
    }

    /// The queued objects whose frames have all completed.
    fn releasable(&mut self) -> Vec<Retired> {
        let oldest = self.in_flight.iter().flatten().copied().min().unwrap_or(u64::MAX);
        let (free, keep) = std::mem::take(&mut self.retired).into_iter().partition(|(s, _)| *s < oldest);
        self.retired = keep;
        free.into_iter().map(|(_, item)| item).collect::<Vec<_>>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(n: u64) -> Retired {
        Retired::View(ash::vk::Handle::from_raw(n))
    }

    fn views(items: &[Retired]) -> Vec<u64> {
        use ash::vk::Handle;
        items
            .iter()
            .map(|r| match r {
                Retired::View(v) => v.as_raw(),
                _ => u64::MAX,
            })
            .collect()
    }

    #[test]
    fn with_nothing_in_flight_a_dropped_object_goes_at_once() {
        let mut clock = FrameClock::new(2);
        assert!(clock.retire(view(1)).is_some());
        assert_eq!(clock.waiting(), 0);
    }

    #[test]
    fn an_object_waits_for_every_frame_recorded_before_it_was_dropped() {
        let mut clock = FrameClock::new(2);
        clock.begin(0).expect("slot 0 free");
        clock.begin(1).expect("slot 1 free");
        assert!(clock.retire(view(7)).is_none(), "frames 1 and 2 may use it");
        assert!(views(&clock.complete(0).expect("slot 0")).is_empty(), "frame 2 may still use it");
        clock.begin(0).expect("slot 0 free again");
        assert_eq!(views(&clock.complete(1).expect("slot 1")), [7], "frame 3 was recorded after the drop");
        assert_eq!(clock.waiting(), 0);
    }

    #[test]
    fn a_slot_is_recorded_once_until_completed() {
        let mut clock = FrameClock::new(2);
        clock.begin(1).expect("free");
        assert_eq!(clock.begin(1), Err(SlotError::Busy));
        assert_eq!(clock.begin(2), Err(SlotError::OutOfRange));
        assert!(clock.complete(5).is_err());
        clock.complete(1).expect("in range");
        assert!(!clock.busy(1));
        assert_eq!(clock.begin(1), Ok(2), "serials keep counting");
    }
}
