//! Features a device error turned off: when making the GPU resources of the particle
//! fog's bricks, the froxel fog or the particle pool fails because the device is out of memory
//! (or lost), that feature is switched off for the rest of the renderer's life with a warning
//! naming what failed, the frame renders without it, and the frame report lists it
//! ([`crate::cli::render::TimingReport::features_off`]). Other errors (a bug, an unsupported
//! device) still fail the frame. [`FeaturesOff::settle`] is the one place that decides.

use serde::Serialize;

use crate::error::{RenderError, Result};

/// A feature whose GPU resources the frame makes on demand, and that a device error may turn off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// The particle fog's bricks (`RenderVKParticleFog`): converted systems are drawn as
    /// billboards again.
    ParticleFog,
    /// The froxel fog (`RenderVKVolumetricFog`).
    VolumetricFog,
    /// The scene's GPU particles (the particle pool).
    Particles,
}

impl Feature {
    /// What the feature is called in messages.
    pub fn label(self) -> &'static str {
        match self {
            Feature::ParticleFog => "particle fog (RenderVKParticleFog)",
            Feature::VolumetricFog => "volumetric fog (RenderVKVolumetricFog)",
            Feature::Particles => "particles",
        }
    }
}

/// A feature turned off, and the error that did it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FeatureOff {
    /// The feature.
    pub feature: Feature,
    /// The device error, naming the resource that failed.
    pub reason: String,
}

/// The features turned off so far.
#[derive(Clone, Debug, Default)]
pub struct FeaturesOff(Vec<FeatureOff>);

impl FeaturesOff {
    /// True once a device error turned `feature` off.
    pub fn is_off(&self, feature: Feature) -> bool {
        self.0.iter().any(|f| f.feature == feature)
    }

    /// Every feature turned off, in the order it happened.
    pub fn list(&self) -> &[FeatureOff] {
        &self.0
    }

    /// Settles the outcome of making `feature`'s resources: the value when made; `None` when
    /// the device was out of memory or lost (the feature is then off, with a warning); other
    /// errors are returned.
    pub fn settle<T>(&mut self, feature: Feature, made: Result<T>) -> Result<Option<T>> {
        match made {
            Ok(value) => Ok(Some(value)),
            Err(e @ (RenderError::OutOfMemory(_) | RenderError::DeviceLost(_))) => {
                tracing::warn!("{} turned off: {e}", feature.label());
                if !self.is_off(feature) {
                    self.0.push(FeatureOff { feature, reason: e.to_string() });
                }
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_memory_turns_the_feature_off_naming_the_resource() {
        let mut off = FeaturesOff::default();
        let made: Result<u32> = Err(RenderError::OutOfMemory("creating image fog.bricks.atlas".into()));
        assert_eq!(off.settle(Feature::ParticleFog, made).ok(), Some(None));
        assert!(off.is_off(Feature::ParticleFog) && !off.is_off(Feature::VolumetricFog));
        assert_eq!(off.list().len(), 1);
        assert!(off.list()[0].reason.contains("fog.bricks.atlas"), "{:?}", off.list());
    }

    #[test]
    fn a_lost_device_turns_it_off_too_and_success_keeps_it_on() {
        let mut off = FeaturesOff::default();
        assert_eq!(off.settle(Feature::Particles, Ok(7)).ok(), Some(Some(7)));
        assert!(!off.is_off(Feature::Particles));
        let lost: Result<()> = Err(RenderError::DeviceLost("creating buffer particles.pool".into()));
        assert!(matches!(off.settle(Feature::Particles, lost), Ok(None)));
        assert!(off.is_off(Feature::Particles));
    }

    #[test]
    fn other_errors_are_not_device_errors_and_still_fail() {
        let mut off = FeaturesOff::default();
        let bug: Result<()> = Err(RenderError::Unsupported("no subgroup arithmetic".into()));
        assert!(off.settle(Feature::ParticleFog, bug).is_err());
        assert!(off.list().is_empty());
    }
}
