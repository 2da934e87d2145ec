//! The froxel fog's CPU twin: slice distribution, the energy-conserving integration step, and the
//! lookup between slices. The GPU passes `fog.froxel_integrate` and `fog.apply` implement exactly
//! this; tests compare them on lavapipe.
//!
//! - Slices are distributed exponentially in view depth (Wronski 2014): slice `s` of `n` starts at
//!   `near * (far/near)^(s/n)`, so froxels are roughly cubic at every distance. Slice 0 reaches
//!   back to the camera (it covers `0..depth_at(1)`), so no fog is lost in front of the near depth.
//! - Integration walks each froxel column front to back with Hillaire's analytic step (SIGGRAPH 2015,
//!   "Physically-based & unified volumetric rendering in Frostbite"): over a segment of length `d`
//!   with extinction `sigma_t` and in-scattered radiance per metre `L` (already multiplied by the
//!   scattering coefficient), the segment adds `(L - L e^(-sigma_t d)) / sigma_t` times the
//!   transmittance so far, and multiplies the transmittance by `e^(-sigma_t d)`. Unlike the
//!   single-sample form, this neither leaks nor gains energy as `sigma_t d` grows.
//! - Integrated texel `s` holds the result at the *far* edge of slice `s`; a lookup at depth `z`
//!   interpolates linearly between far edges in slice space, and from (no fog) at depth 0 to texel 0
//!   inside the first slice.

/// Below this extinction (1/m) a segment is treated as a vacuum-like limit (`L d`).
pub const MIN_EXTINCTION: f32 = 1e-6;

/// The slice layout of a froxel grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slices {
    /// Number of depth slices.
    pub count: u32,
    /// View depth where slice 0 starts, m.
    pub near_m: f32,
    /// View depth where the last slice ends, m.
    pub far_m: f32,
}

impl Slices {
    /// View depth (m) at continuous slice coordinate `s` in `0..=count`.
    pub fn depth_at(&self, s: f32) -> f32 {
        self.near_m * (self.far_m / self.near_m).powf(s / self.count as f32)
    }

    /// Continuous slice coordinate of view depth `z` (may be outside `0..=count`).
    pub fn slice_of(&self, z: f32) -> f32 {
        (z.max(1e-6) / self.near_m).ln() / (self.far_m / self.near_m).ln() * self.count as f32
    }
}

/// Radiance and transmittance accumulated from the camera to some depth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Integrated {
    /// In-scattered radiance reaching the camera.
    pub scatter: [f32; 3],
    /// Transmittance.
    pub transmittance: f32,
}

impl Integrated {
    /// Nothing between the camera and the point.
    pub const CLEAR: Integrated = Integrated { scatter: [0.0; 3], transmittance: 1.0 };

    /// Applies to a surface radiance behind the fog: `surface * T + scatter`.
    pub fn apply(&self, surface: [f32; 3]) -> [f32; 3] {
        std::array::from_fn(|i| surface[i] * self.transmittance + self.scatter[i])
    }
}

/// One froxel's medium: extinction (1/m) and in-scattered radiance per metre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Medium {
    /// Extinction coefficient, 1/m.
    pub extinction: f32,
    /// Scattering coefficient times incoming radiance times phase, per metre.
    pub scatter: [f32; 3],
}

/// Advances `acc` through a segment of `length_m` metres of `medium` (Hillaire's step).
pub fn step(acc: Integrated, medium: Medium, length_m: f32) -> Integrated {
    let sigma = medium.extinction.max(0.0);
    let t_seg = (-sigma * length_m).exp();
    let gain = if sigma > MIN_EXTINCTION { (1.0 - t_seg) / sigma } else { length_m };
    Integrated {
        scatter: std::array::from_fn(|i| acc.scatter[i] + acc.transmittance * medium.scatter[i] * gain),
        transmittance: acc.transmittance * t_seg,
    }
}

/// Integrates one froxel column: `media[s]` fills slice `s`; `ray_scale` converts view depth to
/// distance along the ray (`1 / cos` of the angle to the view axis). Returns the value at each
/// slice's far edge.
pub fn integrate_column(slices: &Slices, media: &[Medium], ray_scale: f32) -> Vec<Integrated> {
    let mut acc = Integrated::CLEAR;
    media
        .iter()
        .enumerate()
        .map(|(s, m)| {
            let start = if s == 0 { 0.0 } else { slices.depth_at(s as f32) };
            let d = (slices.depth_at(s as f32 + 1.0) - start) * ray_scale;
            acc = step(acc, *m, d);
            acc
        })
        .collect()
}

/// The integrated fog at view depth `z` from a column of far-edge values (the lookup `fog.apply`
/// and later passes perform, with linear interpolation in slice space).
pub fn lookup(slices: &Slices, column: &[Integrated], z: f32) -> Integrated {
    let Some(first) = column.first() else { return Integrated::CLEAR };
    let s = slices.slice_of(z);
    if s <= 1.0 {
        // Inside the first slice (or nearer): from clear at the camera to texel 0 at its far edge.
        let f = (z / slices.depth_at(1.0)).clamp(0.0, 1.0);
        return lerp(Integrated::CLEAR, *first, f);
    }
    let t = (s - 1.0).min(column.len() as f32 - 1.0);
    let i = t.floor() as usize;
    let next = column.get(i + 1).copied().unwrap_or(column[i]);
    lerp(column[i], next, t - i as f32)
}

fn lerp(a: Integrated, b: Integrated, f: f32) -> Integrated {
    Integrated {
        scatter: std::array::from_fn(|i| a.scatter[i] + (b.scatter[i] - a.scatter[i]) * f),
        transmittance: a.transmittance + (b.transmittance - a.transmittance) * f,
    }
}

/// Henyey-Greenstein phase function for scattering angle cosine `cos_theta` and anisotropy `g`.
pub fn henyey_greenstein(cos_theta: f32, g: f32) -> f32 {
    let denom = (1.0 + g * g - 2.0 * g * cos_theta).max(1e-6);
    (1.0 - g * g) / (4.0 * std::f32::consts::PI * denom * denom.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SLICES: Slices = Slices { count: 64, near_m: 0.2, far_m: 96.0 };

    #[test]
    fn slices_are_exponential_and_invertible() {
        assert!((SLICES.depth_at(0.0) - 0.2).abs() < 1e-6);
        assert!((SLICES.depth_at(64.0) - 96.0).abs() < 1e-3);
        let ratio = SLICES.depth_at(11.0) / SLICES.depth_at(10.0);
        assert!((ratio - SLICES.depth_at(41.0) / SLICES.depth_at(40.0)).abs() < 1e-5, "constant ratio");
        for z in [0.3, 1.0, 7.5, 50.0] {
            assert!((SLICES.depth_at(SLICES.slice_of(z)) - z).abs() < 1e-4 * z);
        }
    }

    #[test]
    fn homogeneous_fog_transmittance_is_beer_lambert_at_any_depth() {
        let sigma = 0.05;
        let media = vec![Medium { extinction: sigma, scatter: [0.0; 3] }; 64];
        let column = integrate_column(&SLICES, &media, 1.0);
        for z in [0.5, 3.0, 20.0, 90.0] {
            let t = lookup(&SLICES, &column, z).transmittance;
            let expected = (-sigma * z).exp();
            assert!((t - expected).abs() < 0.01 * expected + 2e-3, "z {z}: {t} vs {expected}");
        }
    }

    #[test]
    fn energy_step_converges_to_the_medium_radiance_in_thick_fog() {
        // Infinite homogeneous medium: in-scatter tends to L / sigma_t (the medium's own radiance).
        let m = Medium { extinction: 2.0, scatter: [1.0, 0.5, 0.25] };
        let mut acc = Integrated::CLEAR;
        for _ in 0..100 {
            acc = step(acc, m, 0.5);
        }
        assert!((acc.scatter[0] - 0.5).abs() < 1e-4 && (acc.scatter[2] - 0.125).abs() < 1e-4);
        assert!(acc.transmittance < 1e-10);
    }

    #[test]
    fn one_step_equals_many_small_steps() {
        let m = Medium { extinction: 0.7, scatter: [0.3; 3] };
        let one = step(Integrated::CLEAR, m, 4.0);
        let many = (0..400).fold(Integrated::CLEAR, |a, _| step(a, m, 0.01));
        assert!((one.scatter[0] - many.scatter[0]).abs() < 1e-4, "{one:?} vs {many:?}");
        assert!((one.transmittance - many.transmittance).abs() < 1e-5);
    }

    #[test]
    fn vacuum_adds_nothing() {
        let column = integrate_column(&SLICES, &[Medium { extinction: 0.0, scatter: [0.0; 3] }; 64], 1.3);
        assert_eq!(lookup(&SLICES, &column, 40.0), Integrated::CLEAR);
    }

    #[test]
    fn phase_function_integrates_to_one_and_peaks_forward() {
        for g in [-0.5f32, 0.0, 0.3, 0.8] {
            let n = 20_000;
            let integral: f32 = (0..n)
                .map(|i| {
                    let mu = -1.0 + (i as f32 + 0.5) * 2.0 / n as f32;
                    henyey_greenstein(mu, g) * 2.0 * std::f32::consts::PI * (2.0 / n as f32)
                })
                .sum();
            assert!((integral - 1.0).abs() < 2e-3, "g {g}: {integral}");
        }
        assert!(henyey_greenstein(1.0, 0.5) > henyey_greenstein(-1.0, 0.5));
    }
}
