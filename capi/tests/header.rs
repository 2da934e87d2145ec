//! `include/particle_fog.h` and `src/lib.rs` describe the same ABI: every function the header
//! declares is exported by the library and the other way round, and every struct has the same
//! fields in the same order on both sides.

use std::collections::BTreeSet;

const HEADER: &str = include_str!("../include/particle_fog.h");
const LIB: &str = include_str!("../src/lib.rs");

/// The header without its comments.
fn header() -> String {
    let mut out = String::new();
    let mut rest = HEADER;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start..].find("*/").map_or("", |end| &rest[start + end + 2..]);
    }
    out + rest
}

/// `pf_*` function names declared in the header.
fn header_functions() -> BTreeSet<String> {
    header()
        .split(';')
        .filter(|d| !d.contains("typedef") && !d.trim_start().starts_with('#'))
        .filter_map(|d| {
            let open = d.find('(')?;
            let name = d[..open].split(|c: char| !(c.is_alphanumeric() || c == '_')).next_back()?;
            name.starts_with("pf_").then(|| name.to_owned())
        })
        .collect()
}

/// `pf_*` functions the library exports.
fn library_functions() -> BTreeSet<String> {
    LIB.split("#[no_mangle]")
        .skip(1)
        .filter_map(|rest| {
            let after = &rest[rest.find("fn ")? + 3..];
            Some(after[..after.find('(')?].trim().to_owned())
        })
        .collect()
}

/// Field names of every `typedef struct pf_x { ... } pf_x;`, by struct name.
fn header_structs() -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for part in header().split("typedef struct ").skip(1) {
        let Some(open) = part.find('{') else { continue };
        let name = part[..open].trim().to_owned();
        let body = &part[open + 1..part.find('}').expect("struct end")];
        let mut fields = Vec::new();
        for decl in body.split(';') {
            let decl = decl.split('*').next_back().unwrap_or("").to_owned();
            let decl = decl.trim();
            if decl.is_empty() {
                continue;
            }
            // `uint32_t width, height` or `float position[3]`.
            let mut words = decl.split(',');
            let first = words.next().unwrap_or("").split_whitespace().last().unwrap_or("").to_owned();
            for w in std::iter::once(first).chain(words.map(|w| w.trim().to_owned())) {
                fields.push(w.split('[').next().unwrap_or("").trim().to_owned());
            }
        }
        out.push((name, fields));
    }
    out
}

/// Field names of the `#[repr(C)]` struct `rust_name`.
fn library_fields(rust_name: &str) -> Option<Vec<String>> {
    let start = LIB.find(&format!("pub struct {rust_name} {{"))?;
    let body = &LIB[start..start + LIB[start..].find("\n}")?];
    Some(
        body.lines()
            .filter_map(|l| l.trim().strip_prefix("pub ")?.split_once(':').map(|(n, _)| n.trim().to_owned()))
            .collect(),
    )
}

/// `pf_frame_update` -> `PfFrameUpdate`.
fn rust_name(c_name: &str) -> String {
    c_name.split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

#[test]
fn the_header_declares_exactly_the_exported_functions() {
    let (h, l) = (header_functions(), library_functions());
    assert!(h.len() > 20, "{h:?}");
    assert_eq!(h, l, "declared only: {:?}; exported only: {:?}", &h - &l, &l - &h);
}

#[test]
fn every_struct_has_the_same_fields_in_both() {
    let structs = header_structs();
    assert!(structs.len() >= 10, "{structs:?}");
    for (c_name, fields) in structs {
        let rust = rust_name(&c_name);
        let got = library_fields(&rust).unwrap_or_else(|| panic!("{c_name}: no #[repr(C)] struct {rust}"));
        assert_eq!(fields, got, "{c_name} vs {rust}");
    }
}

#[test]
fn the_checks_notice_a_difference() {
    assert_eq!(rust_name("pf_image_state"), "PfImageState");
    assert!(library_fields("PfNothing").is_none());
    assert!(!header_functions().contains("pf_nothing"));
}
