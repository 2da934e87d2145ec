//! Report inputs from what creators have: LSL scripts (`particles::lsl::import`) and PSYS blocks
//! in hex (`particles::codec::parse_hex` + `decode`).

use particles::codec::{decode, parse_hex, Decoded};
use particles::lsl::import;
use particles::PartSysData;

use super::ReportInput;
use crate::classify::{Override, SystemKey};
use crate::FogError;

/// One input per particle call of `script` that sets a system, labelled `label:line`. Calls that
/// switch the emitter off (`llParticleSystem([])`) are skipped. The texture is
/// `PSYS_SRC_TEXTURE` as written (empty when not set: the default texture). Every call sets the
/// one prim's system, so all share a key, derived from `label` ([`SystemKey::from_name`]).
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
            key: SystemKey::from_name(label),
            override_in_force: Override::Auto,
        })
        .collect())
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
