//! GPU timestamp profiler: one scope per pass, named as the pass (STYLE.md practice 4), durations
//! collected per frame, medians over frames, printed as a table and written as JSON.

use ash::vk;
use serde::Serialize;

use super::context::Shared;
use crate::error::{Result, VkResultExt};

/// Timestamp scopes per frame (two queries each): a frame records a few dozen passes (a sort
/// of a million particles 10 of them), so this is generous.
const MAX_SCOPES: u32 = 2048;

/// Per-pass GPU time over the frames recorded so far.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PassTiming {
    /// The pass name.
    pub pass: String,
    /// Median over frames, milliseconds.
    pub median_ms: f64,
    /// Minimum over frames, milliseconds.
    pub min_ms: f64,
    /// Maximum over frames, milliseconds.
    pub max_ms: f64,
    /// Frames in which the pass ran.
    pub frames: usize,
}

/// Collects timestamps into per-pass histories.
///
/// Each frame slot has its own query pool, so a slot's timestamps are read when that slot
/// completes while the other slots' frames still run: slot `i` serves frames recorded into a
/// host's command buffer for slot `i` ([`crate::Gpu::record_frame`]), the last one the
/// submissions that wait ([`crate::Gpu::submit`]).
pub struct Profiler {
    slots: Vec<SlotQueries>,
    /// The slot being recorded.
    current: usize,
    period_ns: f64,
    open: Vec<(String, u32)>,
    timed: bool,
    history: Vec<(String, Vec<f64>)>,
    /// Each pass's time in the newest frame read, ms, in recorded order.
    last_frame: Vec<(String, f64)>,
    /// Each read frame's timed scopes summed, ms, in the order the frames completed.
    frame_totals: Vec<f64>,
}

/// One frame slot's timestamp queries.
struct SlotQueries {
    pool: vk::QueryPool,
    /// Scopes closed in the slot's last recorded frame: (name, first query, second query).
    closed: Vec<(String, u32, u32)>,
    next_query: u32,
}

impl Profiler {
    /// A profiler with `slots` query pools (none when the device has no timestamps).
    pub(crate) fn new(shared: &Shared, slots: usize) -> Result<Self> {
        let mut profiler = Profiler {
            slots: Vec::new(),
            current: 0,
            period_ns: f64::from(shared.info.timestamp_period_ns),
            open: Vec::new(),
            last_frame: Vec::new(),
            timed: true,
            history: Vec::new(),
            frame_totals: Vec::new(),
        };
        if !shared.info.timestamps {
            tracing::warn!("{} has no timestamps: GPU timings are unavailable", shared.info.name);
            return Ok(profiler);
        }
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(2 * MAX_SCOPES);
        for slot in 0..slots {
            // SAFETY: valid device; destroyed in `destroy` (also when a later pool fails).
            let made = unsafe { shared.device.create_query_pool(&info, None) };
            let pool = match made.ctx("creating the timestamp pool") {
                Ok(pool) => pool,
                Err(e) => {
                    profiler.destroy(shared);
                    return Err(e);
                }
            };
            shared.set_name(pool, &format!("gpu.timestamps.slot{slot}"));
            profiler.slots.push(SlotQueries { pool, closed: Vec::new(), next_query: 0 });
        }
        Ok(profiler)
    }

    /// Starts recording a frame into `slot`, whose previous frame has completed.
    pub(crate) fn begin_frame(&mut self, shared: &Shared, slot: usize, timed: bool) {
        self.timed = timed;
        self.open.clear();
        self.current = slot;
        if let Some(q) = self.slots.get_mut(slot) {
            q.closed.clear();
            q.next_query = 0;
            // SAFETY: hostQueryReset is enabled; the slot's previous frame has completed (the
            // frame clock refuses a busy slot; submissions that wait use their own slot).
            unsafe { shared.device.reset_query_pool(q.pool, 0, 2 * MAX_SCOPES) };
        }
    }

    pub(crate) fn begin_scope(&mut self, shared: &Shared, cmd: vk::CommandBuffer, name: &str) {
        let timed = self.timed;
        let Some(q) = self.slots.get_mut(self.current).filter(|_| timed) else {
            self.open.push((name.to_owned(), u32::MAX));
            return;
        };
        if q.next_query + 2 > 2 * MAX_SCOPES {
            tracing::warn!("more than {MAX_SCOPES} timed scopes in one frame: {name} is not timed");
            self.open.push((name.to_owned(), u32::MAX));
            return;
        }
        let first = q.next_query;
        q.next_query += 2;
        // SAFETY: `cmd` is recording; query `first` was reset this frame and is written once.
        unsafe {
            shared.device.cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::ALL_COMMANDS, q.pool, first)
        };
        self.open.push((name.to_owned(), first));
    }

    pub(crate) fn end_scope(&mut self, shared: &Shared, cmd: vk::CommandBuffer) {
        let Some((name, first)) = self.open.pop() else { return };
        let Some(q) = self.slots.get_mut(self.current).filter(|_| first != u32::MAX) else { return };
        // SAFETY: as in `begin_scope`, for the scope's second query.
        unsafe {
            shared.device.cmd_write_timestamp2(cmd, vk::PipelineStageFlags2::ALL_COMMANDS, q.pool, first + 1)
        };
        q.closed.push((name, first, first + 1));
    }

    /// Reads the timestamps of the frame recorded into `slot` (which has completed) into the
    /// per-pass histories.
    pub(crate) fn end_frame(&mut self, shared: &Shared, slot: usize) -> Result<()> {
        let Some(q) = self.slots.get_mut(slot).filter(|q| !q.closed.is_empty()) else { return Ok(()) };
        let mut ticks = vec![0u64; q.next_query as usize];
        // SAFETY: the slot's frame completed (the caller waited on its fence, or the host said
        // so), so every query in 0..next_query was written.
        unsafe {
            shared.device.get_query_pool_results(
                q.pool,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .ctx("reading timestamps")?;
        let mut frame: Vec<(String, f64)> = Vec::new();
        for (name, a, b) in q.closed.drain(..) {
            let dt = ticks[b as usize].saturating_sub(ticks[a as usize]) as f64 * self.period_ns * 1e-6;
            match frame.iter_mut().find(|(n, _)| *n == name) {
                Some((_, total)) => *total += dt,
                None => frame.push((name, dt)),
            }
        }
        self.last_frame.clone_from(&frame);
        self.frame_totals.push(frame.iter().map(|(_, ms)| ms).sum());
        for (name, ms) in frame {
            match self.history.iter_mut().find(|(n, _)| *n == name) {
                Some((_, v)) => v.push(ms),
                None => self.history.push((name, vec![ms])),
            }
        }
        Ok(())
    }

    /// Each pass's GPU time in the newest frame whose timestamps were read, ms (a live view's
    /// graph; [`Profiler::timings`] for statistics).
    pub fn last_frame(&self) -> &[(String, f64)] {
        &self.last_frame
    }

    /// Forgets every recorded frame (e.g. after warm-up frames).
    pub fn clear(&mut self) {
        self.history.clear();
        self.frame_totals.clear();
    }

    /// Each frame read since the last [`Profiler::clear`]: its timed scopes summed, ms, in the
    /// order the frames completed (frames without a timed scope are not counted).
    pub fn frame_totals(&self) -> &[f64] {
        &self.frame_totals
    }

    /// Per-pass statistics in first-recorded order.
    pub fn timings(&self) -> Vec<PassTiming> {
        self.history
            .iter()
            .map(|(pass, samples)| {
                let mut s = samples.clone();
                s.sort_by(f64::total_cmp);
                PassTiming {
                    pass: pass.clone(),
                    median_ms: median_of_sorted(&s),
                    min_ms: s.first().copied().unwrap_or(0.0),
                    max_ms: s.last().copied().unwrap_or(0.0),
                    frames: s.len(),
                }
            })
            .collect()
    }

    /// The timing table as text.
    pub fn table(&self) -> String {
        format_table(&self.timings())
    }

    pub(crate) fn destroy(&mut self, shared: &Shared) {
        for q in self.slots.drain(..) {
            // SAFETY: no submission using the pool is in flight (the owner waited for idle).
            unsafe { shared.device.destroy_query_pool(q.pool, None) };
        }
    }
}

/// Median of an ascending slice (mean of the middle two for even lengths); 0 when empty.
pub fn median_of_sorted(s: &[f64]) -> f64 {
    match s.len() {
        0 => 0.0,
        n if n % 2 == 1 => s[n / 2],
        n => 0.5 * (s[n / 2 - 1] + s[n / 2]),
    }
}

/// Formats timings as an aligned table with a total row.
pub fn format_table(timings: &[PassTiming]) -> String {
    let width = timings.iter().map(|t| t.pass.len()).max().unwrap_or(4).max(5);
    let mut out = format!(
        "{:<width$}  {:>10}  {:>10}  {:>10}  {:>6}\n",
        "pass", "median ms", "min ms", "max ms", "frames"
    );
    for t in timings {
        out += &format!(
            "{:<width$}  {:>10.3}  {:>10.3}  {:>10.3}  {:>6}\n",
            t.pass, t.median_ms, t.min_ms, t.max_ms, t.frames
        );
    }
    let total: f64 = timings.iter().map(|t| t.median_ms).sum();
    out += &format!("{:<width$}  {:>10.3}\n", "total", total);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_handles_odd_even_and_empty() {
        assert_eq!(median_of_sorted(&[]), 0.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 9.0]), 2.0);
        assert_eq!(median_of_sorted(&[1.0, 2.0, 4.0, 9.0]), 3.0);
    }

    #[test]
    fn table_lists_every_pass_and_the_total() {
        let t = |p: &str, ms| PassTiming { pass: p.into(), median_ms: ms, min_ms: ms, max_ms: ms, frames: 3 };
        let text = format_table(&[t("fog.froxel_inject", 0.25), t("fog.brick_march", 0.5)]);
        assert!(text.contains("fog.froxel_inject"));
        assert!(text.contains("fog.brick_march"));
        assert!(text.lines().last().is_some_and(|l| l.starts_with("total") && l.contains("0.750")));
    }
}
