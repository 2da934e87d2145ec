//! Plain-words advice from the soft factors: which factor decided, and what would change it.

use super::assess::Verdict;
use super::factors::Factors;

/// The deciding reason and what would change it, when no exclusion fired: for fog, the factor
/// that keeps the score lowest; for a billboard, the weakest factor and how to raise it.
pub fn from_factors(f: &Factors, verdict: Verdict) -> (String, String) {
    let (name, value) =
        f.named()
            .into_iter()
            .fold(("", f32::INFINITY), |best, (n, v)| if v < best.1 { (n, v) } else { best });
    let (what, raise) = describe(name);
    match verdict {
        Verdict::Fog => (
            "large, faint, slow particles with a soft texture overlap into a volume: they become fog"
                .to_owned(),
            if value >= 1.0 {
                format!(
                    "every factor is at 1, clear of its ramp; it would stay billboards with, for one, {what}"
                )
            } else {
                format!("the lowest factor is `{name}` at {value:.2}; it would stay billboards with {what}")
            },
        ),
        Verdict::Billboard => {
            (format!("the soft score is held down by {what} ({value:.2})"), format!("to become fog: {raise}"))
        }
    }
}

/// A factor in plain words, and how a creator raises it.
fn describe(factor: &str) -> (&'static str, &'static str) {
    match factor {
        "big" => ("too little overlap between particles", "more or larger particles closer together"),
        "faint" => ("particles too opaque", "lower PSYS_PART_START_ALPHA / END_ALPHA"),
        "slow" => (
            "particles seen moving too many sizes per second",
            "slower or larger particles, or more of them, so that each overlaps the next along its path",
        ),
        "long_lived" => (
            "particles living too briefly without spreading as smoke does",
            "a longer PSYS_PART_MAX_AGE, or puffs that grow or fly apart as they fade",
        ),
        "normal_blend" => ("a non-normal blend", "the normal alpha blend"),
        "soft" => ("a texture that is not a soft puff", "a soft, round puff texture"),
        "alive" => ("too few particles alive", "a higher burst count or rate"),
        _ => ("an unknown factor", "a change to the system"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_ones() -> Factors {
        Factors { big: 1.0, faint: 1.0, slow: 1.0, long_lived: 1.0, normal_blend: 1.0, soft: 1.0, alive: 1.0 }
    }

    #[test]
    fn fog_advice_names_the_lowest_factor_or_says_none_is_near_its_ramp() {
        let (_, change) = from_factors(&Factors { soft: 0.8, ..all_ones() }, Verdict::Fog);
        assert!(change.starts_with("the lowest factor is `soft` at 0.80"), "{change}");
        let (_, change) = from_factors(&all_ones(), Verdict::Fog);
        assert!(change.starts_with("every factor is at 1"), "{change}");
    }
}
