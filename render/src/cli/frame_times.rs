//! Each timed frame of `particle-fog render`: its wall clock, CPU work and GPU time and the slots
//! of the particle fog's brick pool, and the frames far over the median. A resize of the brick
//! pool must not make one: render a scene whose fog builds up (e.g. `--warmup 0`) and read
//! [`summary`]'s lines, or `per_frame` in the timings JSON.

use serde::Serialize;

use crate::vk::profiler::median_of_sorted;

/// One timed frame.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameTiming {
    /// Wall clock, ms (CPU side: recording, submission and any wait for a frame in flight).
    pub wall_ms: f64,
    /// CPU work, ms: the wall clock less the wait for the GPU.
    pub cpu_ms: f64,
    /// GPU time, ms: the frame's timed passes summed (absent without timestamps).
    pub gpu_ms: Option<f64>,
    /// Slots of the brick pool the frame ran with (absent while the particle fog is off).
    pub bricks_allocated: Option<u32>,
}

/// A figure's median over the frames, its largest value and that frame, and the frames above
/// twice the median.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// Median, ms.
    pub median_ms: f64,
    /// Largest, ms.
    pub max_ms: f64,
    /// The frame (index among the timed frames) with the largest.
    pub max_frame: usize,
    /// Frames above twice the median.
    pub over_twice: Vec<usize>,
}

/// The spread of `values` (one per frame); `None` for no frames.
pub fn spread(values: &[f64]) -> Option<Spread> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median_ms = median_of_sorted(&sorted);
    let (max_frame, &max_ms) = values.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    let over_twice = (0..values.len()).filter(|&i| values[i] > 2.0 * median_ms).collect();
    Some(Spread { median_ms, max_ms, max_frame, over_twice })
}

/// The frames before which the brick pool was remade: (frame, slots before, slots after).
pub fn resizes(frames: &[FrameTiming]) -> Vec<(usize, u32, u32)> {
    frames
        .windows(2)
        .enumerate()
        .filter_map(|(i, w)| match (w[0].bricks_allocated, w[1].bricks_allocated) {
            (Some(a), Some(b)) if a != b => Some((i + 1, a, b)),
            _ => None,
        })
        .collect()
}

/// Lines for the text report: each figure's median, largest and frames over twice the median,
/// and the brick pool's resizes.
pub fn summary(frames: &[FrameTiming]) -> String {
    let wall: Vec<f64> = frames.iter().map(|f| f.wall_ms).collect();
    let cpu: Vec<f64> = frames.iter().map(|f| f.cpu_ms).collect();
    let gpu: Option<Vec<f64>> = frames.iter().map(|f| f.gpu_ms).collect();
    let mut out = String::new();
    for (name, values) in [("wall clock", Some(wall)), ("CPU work", Some(cpu)), ("GPU", gpu)] {
        let Some(s) = values.as_deref().and_then(spread) else { continue };
        out += &format!(
            "{name} per frame: median {:.3} ms, max {:.3} ms (frame {}), {} frame(s) over twice the median {:?}\n",
            s.median_ms,
            s.max_ms,
            s.max_frame,
            s.over_twice.len(),
            s.over_twice
        );
    }
    let remade = resizes(frames);
    if !remade.is_empty() {
        let list: Vec<String> = remade.iter().map(|(f, a, b)| format!("{f} ({a} -> {b})")).collect();
        out += &format!("brick pool remade before frame(s) (slots): {}\n", list.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(wall_ms: f64, slots: u32) -> FrameTiming {
        FrameTiming { wall_ms, cpu_ms: wall_ms / 2.0, gpu_ms: Some(1.0), bricks_allocated: Some(slots) }
    }

    #[test]
    fn frames_over_twice_the_median_and_the_resizes_are_named() {
        let frames = [frame(1.0, 128), frame(1.2, 128), frame(5.0, 256), frame(1.1, 256), frame(0.9, 128)];
        let s = spread(&frames.iter().map(|f| f.wall_ms).collect::<Vec<_>>()).expect("frames");
        assert_eq!((s.median_ms, s.max_ms, s.max_frame, s.over_twice), (1.1, 5.0, 2, vec![2]));
        assert_eq!(resizes(&frames), [(2, 128, 256), (4, 256, 128)]);
        let text = summary(&frames);
        assert!(
            text.contains("wall clock per frame: median 1.100 ms, max 5.000 ms (frame 2), 1 frame(s)"),
            "{text}"
        );
        assert!(
            text.contains("GPU per frame: median 1.000 ms")
                && text.contains("2 (128 -> 256), 4 (256 -> 128)")
        );
        assert!(spread(&[]).is_none() && summary(&[]).is_empty());
    }
}
