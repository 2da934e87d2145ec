//! How many slots the brick pool holds: as many as the bricks the GPU reports wanting, with room,
//! in whole chunks of [`CHUNK_SLOTS`], within the budget's slots (the ceiling). A pure function of
//! the completed frames' counts ([`PoolSizing::observe`]); [`super::ParticleFog`] remakes the pool
//! at the size it returns before the next frame is recorded.
//!
//! - **Demand**: the bricks a frame wanted, `used + failed` ([`Demand`]): the bricks in use, and
//!   the requests that found no free slot or no room in the request list (which holds as many
//!   entries as the budget has slots, so the count is whole up to the budget).
//! - **Target**: [`target_slots`]: 3/2 of the demand rounded up to a chunk, at least
//!   [`MIN_POOL_SLOTS`], at most the ceiling. Within the ceiling the target's bytes are at most
//!   max([`FLOOR_BYTES`], twice the demand's bytes) (test: `the_target_holds_the_allocation_rule`).
//! - **Grow** at once when a frame had failed requests or wanted more than 3/4 of the pool: to
//!   [`grow_slots`] of that frame's demand, twice it where the rule allows, at least the target (a
//!   ramp then grows the pool by about 1.5x a step). With frames in flight the counts arrive `N`
//!   frames late, so a demand that jumps past the pool is clipped for those frames; one that grows
//!   by less than a third within them is not.
//! - **Shrink** after [`SHRINK_AFTER_FRAMES`] frames in a row of low use, to the target of the
//!   largest demand among them. Low use: the target is at most half the pool, or the pool is
//!   above max([`FLOOR_BYTES`], twice the demand's bytes). Any other frame restarts the count.
//!   After a resize the demand sits between 1/2 and 2/3 of the pool, below the growth (3/4) and
//!   within the rule, so the pool is neither busy nor low and its size does not flap.

use super::pool::BYTES_PER_SLOT;

/// Slots are allocated in whole chunks of this many (about 1.1 MiB of slots).
pub const CHUNK_SLOTS: u32 = 64;
/// The pool's smallest size and the size it starts at: two chunks, about 3.3 MiB with the fixed
/// tables; the showcase scenes use 20-47 bricks.
pub const MIN_POOL_SLOTS: u32 = 2 * CHUNK_SLOTS;
/// Allocations up to this size are kept however few bricks are in use (the rule allocated <=
/// max(16 MiB, 2 x the bricks in use) holds below it whatever the use).
pub const FLOOR_BYTES: u64 = 16 << 20;
/// Frames in a row of low use after which the pool shrinks: 10 s at 30 frames a second, 5 s at 60.
pub const SHRINK_AFTER_FRAMES: u32 = 300;

/// What one completed frame asked of the pool (its counters read back).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Demand {
    /// Bricks in use (kept from earlier frames or allocated in this one).
    pub used: u32,
    /// Requests that found no free slot, or no room in the request list.
    pub failed: u32,
}

impl Demand {
    /// The bricks the frame wanted.
    pub fn bricks(self) -> u32 {
        self.used.saturating_add(self.failed)
    }
}

/// The slots a pool for `bricks` wanted bricks gets: 3/2 of them rounded up to a whole chunk,
/// at least [`MIN_POOL_SLOTS`], at most `ceiling` (the budget's slots).
pub fn target_slots(bricks: u32, ceiling: u32) -> u32 {
    let roomy = (u64::from(bricks) * 3).div_ceil(2).next_multiple_of(u64::from(CHUNK_SLOTS));
    roomy.max(u64::from(MIN_POOL_SLOTS)).min(u64::from(ceiling)) as u32
}

/// The most bytes the rule lets a pool hold for `bricks` wanted bricks: max([`FLOOR_BYTES`], twice
/// their bytes).
pub fn allowed_bytes(bricks: u32) -> u64 {
    FLOOR_BYTES.max(2 * u64::from(bricks) * BYTES_PER_SLOT)
}

/// The slots a pool grows to for `bricks` wanted bricks: twice them in whole chunks, less a chunk
/// at a time while `bytes_of` that size is over [`allowed_bytes`], never under
/// [`target_slots`], at most `ceiling`.
pub fn grow_slots(bricks: u32, ceiling: u32, bytes_of: impl Fn(u32) -> u64) -> u32 {
    let least = target_slots(bricks, ceiling);
    let twice = (u64::from(bricks) * 2).next_multiple_of(u64::from(CHUNK_SLOTS)).min(u64::from(ceiling));
    let mut slots = (twice as u32).max(least);
    while slots > least && bytes_of(slots) > allowed_bytes(bricks) {
        slots = (slots - 1) / CHUNK_SLOTS * CHUNK_SLOTS;
        slots = slots.max(least);
    }
    slots
}

/// The grow and shrink decisions and the low-use count they keep.
#[derive(Clone, Debug)]
pub struct PoolSizing {
    /// Frames in a row of low use before the pool shrinks ([`SHRINK_AFTER_FRAMES`]).
    pub shrink_after_frames: u32,
    /// Low-use frames in a row so far.
    low_frames: u32,
    /// The largest demand among them.
    low_peak: u32,
}

impl Default for PoolSizing {
    fn default() -> Self {
        PoolSizing { shrink_after_frames: SHRINK_AFTER_FRAMES, low_frames: 0, low_peak: 0 }
    }
}

impl PoolSizing {
    /// Takes the next completed frame's `demand` for a pool of `capacity` slots that may grow to
    /// `ceiling`, a pool of `slots` slots taking `bytes_of(slots)` bytes
    /// ([`super::pool::pool_memory`]); returns the size to remake it at, or `None` to keep it.
    pub fn observe(
        &mut self,
        demand: Demand,
        capacity: u32,
        ceiling: u32,
        bytes_of: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        let bricks = demand.bricks();
        let target = target_slots(bricks, ceiling);
        let busy = demand.failed > 0 || u64::from(bricks) * 4 > u64::from(capacity) * 3;
        if busy {
            self.restart();
            let grown = grow_slots(bricks, ceiling, bytes_of);
            return (grown > capacity).then_some(grown);
        }
        let low = target < capacity && (target <= capacity / 2 || bytes_of(capacity) > allowed_bytes(bricks));
        if !low {
            self.restart();
            return None;
        }
        self.low_frames += 1;
        self.low_peak = self.low_peak.max(bricks);
        if self.low_frames < self.shrink_after_frames {
            return None;
        }
        let shrunk = target_slots(self.low_peak, ceiling);
        self.restart();
        (shrunk < capacity).then_some(shrunk)
    }

    /// Low-use frames counted so far.
    pub fn low_frames(&self) -> u32 {
        self.low_frames
    }

    fn restart(&mut self) {
        self.low_frames = 0;
        self.low_peak = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::particle_fog::pool::{pool_bytes, PoolShape};

    const SOURCES: u32 = 64;

    /// Slots of a budget of `mib` MiB by the pool's layout on a device without tighter limits.
    fn ceiling(mib: u64) -> u32 {
        let limits = ash::vk::PhysicalDeviceLimits {
            max_storage_buffer_range: u32::MAX,
            max_image_dimension3_d: 2048,
            ..Default::default()
        };
        crate::particle_fog::pool::slot_capacity(mib << 20, SOURCES, &limits)
    }

    fn bytes_for(ceiling: u32) -> impl Fn(u32) -> u64 {
        move |slots| pool_bytes(PoolShape { slots, max_requests: ceiling, max_sources: SOURCES })
    }

    fn used(n: u32) -> Demand {
        Demand { used: n, failed: 0 }
    }

    #[test]
    fn the_target_and_the_growth_hold_the_allocation_rule() {
        for mib in [16, 64, 128, 2048] {
            let top = ceiling(mib);
            let bytes = bytes_for(top);
            let step = if mib > 128 { 7 } else { 1 };
            for bricks in (0..=top + 10).step_by(step) {
                let allowed = FLOOR_BYTES.max(2 * u64::from(bricks) * BYTES_PER_SLOT);
                let (t, g) = (target_slots(bricks, top), grow_slots(bricks, top, &bytes));
                for (what, n) in [("target", t), ("growth", g)] {
                    let at = format!("{mib} MiB, {bricks} bricks: {what} {n} slots, {} bytes", bytes(n));
                    assert!(bytes(n) <= allowed && bytes(n) <= mib << 20, "{at}");
                    assert!(n % CHUNK_SLOTS == 0 || n == top, "{at}: whole chunks or the ceiling");
                    if n < top {
                        assert!(u64::from(bricks) * 4 <= u64::from(n) * 3, "{at}: grows again at once");
                    }
                }
                assert!(
                    g >= t && g <= (2 * bricks).next_multiple_of(CHUNK_SLOTS).max(t),
                    "{bricks}: {t} {g}"
                );
            }
        }
    }

    #[test]
    fn a_pool_grows_past_three_quarters_or_on_a_failed_request() {
        let top = ceiling(128);
        let mut s = PoolSizing::default();
        assert_eq!(s.observe(used(96), 128, top, bytes_for(top)), None, "3/4 exactly stays");
        assert_eq!(s.observe(used(97), 128, top, bytes_for(top)), Some(256), "twice, within 16 MiB");
        // 528 bricks doubled would be 1088 slots, 19.8 MiB: over twice their 9.1 MiB.
        let grown = s.observe(Demand { used: 128, failed: 400 }, 128, top, bytes_for(top));
        assert_eq!(grown, Some(grow_slots(528, top, bytes_for(top))));
        assert!(grown.is_some_and(|n| (792..1088).contains(&n)), "{grown:?}");
        assert_eq!(s.observe(Demand { used: 10, failed: 1 }, 128, top, bytes_for(top)), None, "room already");
        assert_eq!(s.observe(Demand { used: top, failed: 5000 }, 1024, top, bytes_for(top)), Some(top));
        assert_eq!(
            s.observe(Demand { used: top, failed: 5000 }, top, top, bytes_for(top)),
            None,
            "at the budget"
        );
    }

    #[test]
    fn a_pool_shrinks_after_the_low_period_to_its_peak_and_not_before() {
        let top = ceiling(128);
        let mut s = PoolSizing { shrink_after_frames: 5, ..PoolSizing::default() };
        for (i, n) in [100, 300, 200, 0].into_iter().enumerate() {
            assert_eq!(s.observe(used(n), 2048, top, bytes_for(top)), None, "low frame {i}");
        }
        assert_eq!(s.observe(used(50), 2048, top, bytes_for(top)), Some(512), "3/2 of 300, whole chunks");
        assert_eq!(s.low_frames(), 0, "the count restarts after a resize");
    }

    #[test]
    fn a_frame_of_normal_use_restarts_the_low_count() {
        let top = ceiling(128);
        let mut s = PoolSizing { shrink_after_frames: 3, ..PoolSizing::default() };
        let bytes = bytes_for(top);
        assert_eq!(s.observe(used(0), 1024, top, &bytes), None);
        assert_eq!(s.observe(used(0), 1024, top, &bytes), None);
        assert_eq!(s.observe(used(600), 1024, top, &bytes), None, "600 of 1024 is neither busy nor low");
        assert_eq!(s.low_frames(), 0);
        assert_eq!(s.observe(used(0), 1024, top, &bytes), None);
        assert_eq!(s.observe(used(0), 1024, top, &bytes), None);
        assert_eq!(s.observe(used(0), 1024, top, &bytes), Some(MIN_POOL_SLOTS));
    }

    #[test]
    fn a_pool_within_the_floor_shrinks_only_when_half_of_it_would_do() {
        let top = ceiling(128);
        let mut s = PoolSizing { shrink_after_frames: 1, ..PoolSizing::default() };
        // 512 slots (9 MiB, under the floor) for 250 bricks: its target, 384, is over half.
        assert_eq!(s.observe(used(250), 512, top, bytes_for(top)), None);
        assert_eq!(s.observe(used(170), 512, top, bytes_for(top)), Some(256));
        assert_eq!(s.observe(used(0), MIN_POOL_SLOTS, top, bytes_for(top)), None, "never below the least");
    }

    #[test]
    fn a_pool_above_the_floor_shrinks_when_over_twice_its_bricks() {
        let top = ceiling(128);
        let bytes = bytes_for(top);
        let mut s = PoolSizing { shrink_after_frames: 1, ..PoolSizing::default() };
        // 2048 slots (about 39 MiB): 1200 bricks (41 MiB doubled) are within the rule, 1000 not.
        assert!(bytes(2048) <= 2 * 1200 * BYTES_PER_SLOT && bytes(2048) > 2 * 1000 * BYTES_PER_SLOT);
        assert_eq!(s.observe(used(1200), 2048, top, &bytes), None);
        assert_eq!(s.observe(used(1000), 2048, top, &bytes), Some(1536));
    }

    /// Runs `demands` (bricks wanted per frame, seen `latency` frames late) through the sizing
    /// from the least pool, resizing as it says: the slots each frame ran with, and the resizes.
    fn simulate(demands: &[u32], latency: usize, shrink_after: u32) -> (Vec<u32>, usize) {
        let top = ceiling(128);
        let mut s = PoolSizing { shrink_after_frames: shrink_after, ..PoolSizing::default() };
        let (mut capacity, mut ran_with, mut resizes) = (MIN_POOL_SLOTS, Vec::new(), 0);
        for frame in 0..demands.len() {
            ran_with.push(capacity);
            let Some(seen) = frame.checked_sub(latency) else { continue };
            let (want, pool) = (demands[seen], ran_with[seen]);
            let demand = Demand { used: want.min(pool), failed: want.saturating_sub(pool) };
            if let Some(n) = s.observe(demand, capacity, top, bytes_for(top)) {
                capacity = n;
                resizes += 1;
            }
        }
        (ran_with, resizes)
    }

    #[test]
    fn a_demand_that_wavers_within_a_tenth_resizes_once() {
        let demands: Vec<u32> = (0..2000).map(|f| if f % 7 < 3 { 1000 } else { 1100 }).collect();
        let (ran_with, resizes) = simulate(&demands, 2, 60);
        assert_eq!(resizes, 1, "{:?}", &ran_with[..10]);
        assert!(demands.iter().zip(&ran_with).skip(3).all(|(d, c)| d <= c), "no failure after the growth");
    }

    #[test]
    fn a_slow_ramp_never_fails_and_an_emptied_scene_shrinks_once() {
        // 5 % more bricks each frame up to 3000, two seconds at 3000, then none.
        let mut demands: Vec<u32> = Vec::new();
        let mut n = 20.0f64;
        while n < 3000.0 {
            demands.push(n as u32);
            n *= 1.05;
        }
        demands.extend([3000; 60]);
        let ramp_end = demands.len();
        demands.extend([0; 200]);
        let (ran_with, resizes) = simulate(&demands, 2, 100);
        for (f, (want, pool)) in demands.iter().zip(&ran_with).enumerate() {
            assert!(want <= pool, "frame {f}: {want} bricks wanted of a pool of {pool}");
        }
        let steady = ran_with[ramp_end - 1];
        let bytes = bytes_for(ceiling(128));
        assert!(bytes(steady) <= 2 * 3000 * BYTES_PER_SLOT, "{steady} slots for 3000 bricks");
        assert_eq!(ran_with[ramp_end + 100], steady, "not before the low period");
        assert_eq!(*ran_with.last().expect("frames"), MIN_POOL_SLOTS, "back to the least after it");
        let shrinks = ran_with.windows(2).filter(|w| w[1] < w[0]).count();
        assert_eq!(shrinks, 1, "one shrink, straight to the least");
        assert!(resizes <= 12, "{resizes} resizes for 150 times the bricks");
    }
}
