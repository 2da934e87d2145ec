//! Per-object overrides: a person's word on one system, over the classifier's.
//!
//! * [`Override::Auto`] (the default): the exclusions, the score and the hysteresis decide.
//! * [`Override::Fog`] ("always fog"): the system converts whatever the score and whatever the
//!   exclusions a person may judge otherwise (small, fast, short-lived, shaped texture, blends,
//!   glow, follow-velocity, attachments ...), but never past the ones that make no sense as fog
//!   ([`Exclusion::overridable`]: ribbons, targeted particles, HUD particles, and the two settings
//!   switches); the explanation says so.
//! * [`Override::Billboards`] ("never fog"): the system keeps its billboards.
//!
//! A change of override takes effect at once and cross-fades like any decision (the
//! [`super::Classifier`]'s rate); the automatic decision keeps running beneath it, so setting a
//! system back to automatic returns to what the classifier would have decided.
//!
//! Overrides are keyed by [`SystemKey`]: the object's id and the system's link number, as the
//! viewer knows a prim's particle system.

use std::fmt;
use std::str::FromStr;

use particles::Uuid;

use super::exclusion::{Exclusion, ExclusionSet};
use crate::FogError;

/// A person's choice for one system.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Override {
    /// The classifier decides.
    #[default]
    Auto,
    /// Always fog, within the exclusions no override passes.
    Fog,
    /// Never fog.
    Billboards,
}

impl Override {
    /// Every override, in the order a menu lists them.
    pub const ALL: [Override; 3] = [Override::Auto, Override::Fog, Override::Billboards];

    /// `"auto"`, `"fog"` or `"billboards"`: the text of the CLI, the scene file and the overrides
    /// file.
    pub fn as_str(self) -> &'static str {
        match self {
            Override::Auto => "auto",
            Override::Fog => "fog",
            Override::Billboards => "billboards",
        }
    }

    /// The decision under this override: the automatic one (`auto_fog`) for [`Override::Auto`];
    /// for [`Override::Fog`], fog unless an exclusion that no override passes fired.
    pub fn decide(self, auto_fog: bool, exclusions: ExclusionSet) -> bool {
        match self {
            Override::Auto => auto_fog,
            Override::Fog => blocking(exclusions).is_none(),
            Override::Billboards => false,
        }
    }
}

/// The first exclusion of `set` that no override passes.
pub fn blocking(set: ExclusionSet) -> Option<Exclusion> {
    set.iter().find(|e| !e.overridable())
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Override {
    type Err = FogError;

    /// `auto`, `fog` or `billboards` (`billboard` too), any case.
    fn from_str(s: &str) -> Result<Override, FogError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Override::Auto),
            "fog" => Ok(Override::Fog),
            "billboards" | "billboard" => Ok(Override::Billboards),
            _ => Err(FogError::BadOverride {
                text: s.to_owned(),
                reason: "want auto, fog or billboards".to_owned(),
            }),
        }
    }
}

/// Which system an override is for: the object's id and the system's link number (0 for an object
/// of one prim, 1 for a linkset's root, 2.. for its children).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SystemKey {
    /// The object's id.
    pub object: Uuid,
    /// The prim's link number.
    pub link: u32,
}

/// The largest link number: a linkset holds at most 256 prims.
pub const MAX_LINK: u32 = 256;

impl SystemKey {
    /// The key of a system known only by a name (a scene's particle source without `object`, an
    /// LSL file): an id derived from the name (FNV-1a, 128 bits, with the RFC 4122 variant and
    /// version 8 bits set), the same for the same name on every machine, at link 0.
    pub fn from_name(name: &str) -> SystemKey {
        const FNV_OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
        const FNV_PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
        let hash = name.bytes().fold(FNV_OFFSET, |h, b| (h ^ u128::from(b)).wrapping_mul(FNV_PRIME));
        let mut bytes = hash.to_be_bytes();
        bytes[6] = (bytes[6] & 0x0f) | 0x80;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        SystemKey { object: Uuid(bytes), link: 0 }
    }
}

impl fmt::Display for SystemKey {
    /// `OBJECT#LINK`, e.g. `5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e#2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.object, self.link)
    }
}

impl FromStr for SystemKey {
    type Err = FogError;

    /// `OBJECT` (link 0) or `OBJECT#LINK`, the object a UUID, the link 0..=[`MAX_LINK`].
    fn from_str(s: &str) -> Result<SystemKey, FogError> {
        let bad = |reason: String| FogError::BadOverride { text: s.to_owned(), reason };
        let (object, link) = s.trim().split_once('#').unwrap_or((s.trim(), "0"));
        let object = object.parse::<Uuid>().map_err(|e| bad(e.to_string()))?;
        let link = link
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|l| *l <= MAX_LINK)
            .ok_or_else(|| bad(format!("link number {link:?} is not 0..={MAX_LINK}")))?;
        Ok(SystemKey { object, link })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_back_what_they_write_and_names_give_stable_distinct_ids() {
        let key =
            SystemKey { object: "5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e".parse().expect("uuid"), link: 2 };
        assert_eq!(key.to_string().parse::<SystemKey>().expect("reads"), key);
        let bare: SystemKey = "5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e".parse().expect("link 0");
        assert_eq!(bare.link, 0);
        assert!("5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e#257".parse::<SystemKey>().is_err());
        assert!("smoke#1".parse::<SystemKey>().is_err());
        let a = SystemKey::from_name("chimney");
        assert_eq!(a, SystemKey::from_name("chimney"));
        assert_ne!(a, SystemKey::from_name("chimney2"));
        let text = a.object.to_string();
        assert_eq!(&text[14..15], "8", "version nibble: {text}");
    }

    #[test]
    fn overrides_read_their_own_text() {
        for o in Override::ALL {
            assert_eq!(o.as_str().parse::<Override>().expect("reads"), o);
        }
        assert_eq!(" Billboard ".parse::<Override>().expect("reads"), Override::Billboards);
        assert!("always".parse::<Override>().is_err());
    }
}
