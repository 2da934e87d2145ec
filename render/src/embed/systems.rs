//! A viewer's particle systems as the context takes them: keyed by the viewer's own ids, each a
//! PSYS block's bytes (decoded byte-exactly as the viewer does) or a decoded `PartSysData`, with
//! its texture's statistics when the viewer has them and its attachment and HUD flags.

use assetstats::TextureStats;
use fog::report::ReportInput;
use fog::{Override, SystemKey};
use particles::codec::Decoded;
use particles::PartSysData;

use crate::error::{RenderError, Result};

/// The viewer's id of a system (its object's local id and link number, or any key it likes).
pub type SystemId = u64;

/// A system's descriptor.
#[derive(Clone, Copy, Debug)]
pub enum Descriptor<'a> {
    /// A PSYS block, as it came in the object update (86 to 98 bytes).
    Psys(&'a [u8]),
    /// A decoded descriptor.
    Data(PartSysData),
}

impl Descriptor<'_> {
    /// The system, `None` for a block that holds none (the viewer's null block); an error for a
    /// malformed block.
    pub fn decode(&self) -> Result<Option<PartSysData>> {
        match self {
            Descriptor::Data(sys) => Ok(Some(*sys)),
            Descriptor::Psys(block) => match particles::codec::decode(block) {
                Decoded::System(sys) => Ok(Some(sys)),
                Decoded::NoSystem(_) => Ok(None),
                Decoded::Rejected(reason) => {
                    Err(RenderError::BadInput(format!("malformed PSYS block: {reason}")))
                }
            },
        }
    }
}

/// What the viewer says of one system.
#[derive(Clone, Debug)]
pub struct SystemDesc<'a> {
    /// Its descriptor.
    pub descriptor: Descriptor<'a>,
    /// Its texture's statistics (`assetstats::TextureStats::from_rgba` of the decoded texture),
    /// `None` while unknown: the system then stays a billboard unless it uses the viewer's
    /// default texture.
    pub texture: Option<TextureStats>,
    /// Worn on an avatar.
    pub attachment: bool,
    /// A HUD attachment (never fog).
    pub hud: bool,
    /// Its object id and link number, which the user's overrides file keys it by (`None`: made
    /// from the viewer's id).
    pub key: Option<SystemKey>,
}

impl<'a> SystemDesc<'a> {
    /// A plain world system with the descriptor `descriptor` and an unknown texture.
    pub fn new(descriptor: Descriptor<'a>) -> Self {
        SystemDesc { descriptor, texture: None, attachment: false, hud: false, key: None }
    }

    /// The classifier's input for system `id` with the decoded `sys`.
    pub(super) fn report_input(&self, id: SystemId, sys: PartSysData) -> ReportInput {
        let source = format!("system {id}");
        let key = self.key.unwrap_or_else(|| SystemKey::from_name(&source));
        let texture = if self.texture.is_none() && sys.uses_default_texture() {
            String::new()
        } else {
            sys.part_image_id.to_string()
        };
        ReportInput {
            source,
            system: sys,
            texture,
            attachment: self.attachment,
            hud: self.hud,
            key,
            override_in_force: Override::Auto,
        }
    }
}
