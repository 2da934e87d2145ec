//! Report inputs from what creators have: LSL scripts (`particles::lsl::import`) and PSYS blocks
//! in hex (`particles::codec::parse_hex` + `decode`).

use particles::codec::{decode, parse_hex, Decoded};
use particles::lsl::{import, LinkTarget};
use particles::PartSysData;

use super::ReportInput;
use crate::classify::overrides::MAX_LINK;
use crate::classify::{Override, SystemKey};
use crate::FogError;

/// One input per particle call of `script` that sets a system, labelled `label:line`. Calls that
/// switch the emitter off (`llParticleSystem([])`) are skipped. The texture is
/// `PSYS_SRC_TEXTURE` as written (empty when not set: the default texture). The key's object id is
/// derived from `label` ([`SystemKey::from_name`]): the script's object; its link number is the
/// `llLinkParticleSystem` target where that is a number (`LINK_ROOT`: 1), else 0 (the script's own
/// prim), so the calls that set one prim's system share a key.
pub fn inputs_from_lsl(label: &str, script: &str) -> Result<Vec<ReportInput>, FogError> {
    let calls = import(script).map_err(|error| FogError::Lsl { label: label.to_owned(), error })?;
    Ok(calls
        .into_iter()
        .filter(|c| !c.empty)
        .map(|c| ReportInput {
            source: format!("{label}:{}", c.line),
            texture: c.texture.unwrap_or_default(),
            system: c.system,
            attachment: false,
            hud: false,
            key: SystemKey { link: link_number(c.link.as_ref()), ..SystemKey::from_name(label) },
            override_in_force: Override::Auto,
        })
        .collect())
}

/// The link number of an `llLinkParticleSystem` target: a number in 0..=[`MAX_LINK`],
/// `LINK_ROOT` 1; 0 (the script's own prim) for `llParticleSystem`, `LINK_THIS` and what only the
/// running script knows (`LINK_SET`, `LINK_ALL_OTHERS`, a run-time value).
fn link_number(link: Option<&LinkTarget>) -> u32 {
    match link {
        Some(LinkTarget::Number(n)) => u32::try_from(*n).ok().filter(|l| *l <= MAX_LINK).unwrap_or(0),
        Some(LinkTarget::Named(name)) if name == "LINK_ROOT" => 1,
        _ => 0,
    }
}

/// The input of one PSYS block given as hex text. The texture is the block's texture UUID (empty
/// for the nil UUID: the default texture); the key is derived from `label`.
pub fn input_from_hex(label: &str, hex: &str) -> Result<ReportInput, FogError> {
    let bytes = parse_hex(hex).map_err(|error| FogError::Hex { label: label.to_owned(), error })?;
    let system: PartSysData = match decode(&bytes) {
        Decoded::System(sys) => sys,
        Decoded::NoSystem(reason) => return Err(not_a_system(label, reason.to_string())),
        Decoded::Rejected(reason) => return Err(not_a_system(label, reason.to_string())),
    };
    let texture =
        if system.part_image_id.is_nil() { String::new() } else { system.part_image_id.to_string() };
    Ok(ReportInput {
        source: label.to_owned(),
        system,
        texture,
        attachment: false,
        hud: false,
        key: SystemKey::from_name(label),
        override_in_force: Override::Auto,
    })
}

fn not_a_system(label: &str, reason: String) -> FogError {
    FogError::NotASystem { label: label.to_owned(), reason }
}
