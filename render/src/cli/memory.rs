//! Host memory before and after long work: what a job's pictures need at most, checked against
//! what the machine has available before the GPU starts, and the process's peak (printed after
//! `render`). Both read Linux's `/proc`; elsewhere there is no check and no figure.
//!
//! Pictures are written as they come ([`crate::picture`]), so a job's need depends on its size,
//! not on its number of frames: the peak is a few pictures of the job's size at once.

/// Bytes of one RGBA8 picture of `width` x `height`.
pub fn picture_bytes(width: u32, height: u32) -> u64 {
    u64::from(width) * u64::from(height) * 4
}

/// Pictures of the job's size held at once while a frame is written: the staging copy read back
/// from the GPU, the pixels, and the PNG encoder's filtered rows and compressed data.
pub const FRAME_PICTURES: u64 = 4;
/// The same for `--compare`: the frame being read, the two-tile row of the side-by-side picture,
/// and the billboards frame being written beside it.
pub const COMPARE_PICTURES: u64 = 6;

/// Refuses a job needing more than `available` bytes (when known), naming both in GiB.
pub fn ensure_fits(what: &str, needed: u64, available: Option<u64>) -> anyhow::Result<()> {
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    match available {
        Some(a) if needed > a => anyhow::bail!(
            "{what} needs about {:.1} GiB of memory for its pictures, and {:.1} GiB is available; \
             give a smaller --size",
            gib(needed),
            gib(a)
        ),
        _ => Ok(()),
    }
}

/// Memory available for new work, bytes (`MemAvailable`).
pub fn available_bytes() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:")
}

/// The process's peak resident memory so far, bytes (`VmHWM`).
pub fn peak_resident_bytes() -> Option<u64> {
    proc_kib("/proc/self/status", "VmHWM:")
}

/// The `key: N kB` line of a `/proc` file, in bytes.
fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    parse_kib(&text, key)
}

fn parse_kib(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find_map(|l| l.strip_prefix(key))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_size_is_a_gibibyte_a_picture_and_refused_where_it_does_not_fit() {
        let one = picture_bytes(16384, 16384);
        assert_eq!(one, 1 << 30);
        let e = ensure_fits("render", FRAME_PICTURES * one, Some(3 << 30)).expect_err("too much");
        assert!(
            e.to_string().contains("about 4.0 GiB") && e.to_string().contains("3.0 GiB is available"),
            "{e}"
        );
        assert!(ensure_fits("render", FRAME_PICTURES * one, Some(5 << 30)).is_ok());
        assert!(ensure_fits("render", u64::MAX, None).is_ok(), "unknown: no check");
    }

    #[test]
    fn proc_lines_are_read_in_kib() {
        let text = "MemTotal:       16303412 kB\nMemAvailable:    8000000 kB\n";
        assert_eq!(parse_kib(text, "MemAvailable:"), Some(8_000_000 * 1024));
        assert_eq!(parse_kib(text, "VmHWM:"), None);
        assert!(peak_resident_bytes().is_some_and(|b| b > 0));
    }
}
