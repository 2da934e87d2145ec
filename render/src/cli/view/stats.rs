//! What the viewer's stats section shows: the last seconds of frame, CPU and per-pass GPU times
//! (rings for the small graphs), and the particle fog's counts of the newest frame.

use std::collections::VecDeque;

use crate::particle_fog::stats::FogStats;

/// Frames kept for the graphs (about 3 s at 60 Hz).
pub const GRAPH_FRAMES: usize = 180;
/// Passes listed by GPU time, slowest first.
pub const PASSES_LISTED: usize = 10;

/// One pass's GPU time over the last frames, ms.
#[derive(Clone, Debug, Default)]
pub struct PassHistory {
    /// The pass name (its timer scope).
    pub name: String,
    /// Newest last.
    pub ms: VecDeque<f64>,
}

/// The stats rings and the newest fog counts.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Wall-clock time per frame, ms (newest last).
    pub frame_ms: VecDeque<f64>,
    /// CPU work per frame (wall clock less the waits for the GPU), ms.
    pub cpu_ms: VecDeque<f64>,
    /// GPU time of every pass together per frame, ms.
    pub gpu_ms: VecDeque<f64>,
    /// Per pass, in first-seen order.
    pub passes: Vec<PassHistory>,
    /// The particle fog's counts of the newest completed frame (`None` while it is off).
    pub fog: Option<FogStats>,
}

/// Pushes `value` onto `ring`, dropping the oldest beyond [`GRAPH_FRAMES`].
fn push(ring: &mut VecDeque<f64>, value: f64) {
    if ring.len() == GRAPH_FRAMES {
        ring.pop_front();
    }
    ring.push_back(value);
}

impl Stats {
    /// Records one frame: its wall and CPU times and the passes' GPU times of the newest frame
    /// whose timestamps were read (a pass that did not run counts 0).
    pub fn record(&mut self, (frame_ms, cpu_ms): (f64, f64), passes: &[(String, f64)]) {
        push(&mut self.frame_ms, frame_ms);
        push(&mut self.cpu_ms, cpu_ms);
        push(&mut self.gpu_ms, passes.iter().map(|(_, ms)| ms).sum());
        for (name, _) in passes {
            if !self.passes.iter().any(|p| &p.name == name) {
                let ms = std::iter::repeat_n(0.0, self.frame_ms.len() - 1).collect();
                self.passes.push(PassHistory { name: name.clone(), ms });
            }
        }
        for p in &mut self.passes {
            let ms = passes.iter().find(|(n, _)| *n == p.name).map_or(0.0, |(_, ms)| *ms);
            push(&mut p.ms, ms);
        }
    }

    /// The passes by their newest GPU time, slowest first, at most [`PASSES_LISTED`].
    pub fn slowest(&self) -> Vec<&PassHistory> {
        let mut v: Vec<&PassHistory> = self.passes.iter().collect();
        let newest = |p: &PassHistory| p.ms.back().copied().unwrap_or(0.0);
        v.sort_by(|a, b| newest(b).total_cmp(&newest(a)));
        v.truncate(PASSES_LISTED);
        v
    }
}

/// The mean of a ring (0 when empty).
pub fn mean(ring: &VecDeque<f64>) -> f64 {
    if ring.is_empty() {
        0.0
    } else {
        ring.iter().sum::<f64>() / ring.len() as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_keep_the_last_frames_and_passes_line_up() {
        let mut s = Stats::default();
        s.record((10.0, 2.0), &[("a".into(), 1.0)]);
        s.record((12.0, 3.0), &[("a".into(), 2.0), ("b".into(), 5.0)]);
        s.record((11.0, 2.5), &[("b".into(), 4.0)]);
        assert_eq!(s.gpu_ms, [1.0, 7.0, 4.0]);
        assert_eq!(s.passes[0].ms, [1.0, 2.0, 0.0], "a pass that did not run counts 0");
        assert_eq!(s.passes[1].ms, [0.0, 5.0, 4.0], "a new pass is padded to the frames before it");
        assert_eq!(s.slowest()[0].name, "b");
        for i in 0..GRAPH_FRAMES {
            s.record((i as f64, 0.0), &[]);
        }
        assert_eq!(s.frame_ms.len(), GRAPH_FRAMES);
        assert_eq!(s.frame_ms.back(), Some(&((GRAPH_FRAMES - 1) as f64)));
        assert!((mean(&s.cpu_ms) - 0.0).abs() < 1e-12);
    }
}
