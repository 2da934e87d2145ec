//! The JSON report of an import, as the CLI `particle-fog lsl <script.lsl>` prints it.
//!
//! ```json
//! {"calls": [{"line": 12, "function": "llParticleSystem", "link": null, "texture": "smoke",
//!             "descriptor": {"system": {...}, "particle": {...}}, "hex": "...",
//!             "unresolved": [{"rule": "PSYS_SRC_BURST_RATE", "reason": "run-time value: llFrand(...)"}],
//!             "warnings": [], "empty": false, "via": ["default.state_entry", "SetParticles"]}],
//!  "notes": [{"line": 3, "message": "#include \"lib.lsl\" not read: names it defines are unknown"}]}
//! ```
//!
//! `descriptor` is [`DescriptorJson`] (the codec's descriptor form) and `hex` the PSYS block the
//! codec encodes for it; an empty call (`llParticleSystem([])`) has `"descriptor": null` and
//! `"hex": ""` (an empty block is how the wire switches a system off: `isNullPS`). `link` is a
//! number, a `LINK_*` name or null.

use serde_json::{json, Value};

use super::{Import, LslCall};
use crate::codec::{encode, to_hex};
use crate::json::DescriptorJson;

/// The report object of an import.
pub fn report(import: &Import) -> Value {
    json!({
        "calls": import.calls.iter().map(call_json).collect::<Vec<_>>(),
        "notes": import.notes,
    })
}

fn call_json(c: &LslCall) -> Value {
    let (descriptor, hex) = if c.empty {
        (Value::Null, String::new())
    } else {
        (json!(DescriptorJson::from(&c.system)), to_hex(&encode(&c.system)))
    };
    let unresolved: Vec<Value> =
        c.unresolved.iter().map(|u| json!({ "rule": u.rule, "reason": u.reason })).collect();
    json!({
        "line": c.line,
        "function": c.function,
        "link": c.link,
        "texture": c.texture,
        "descriptor": descriptor,
        "hex": hex,
        "unresolved": unresolved,
        "warnings": c.warnings,
        "empty": c.empty,
        "via": c.via,
    })
}
