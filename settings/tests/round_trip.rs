//! A realistic user `settings.xml` survives load, set, save with nothing lost.

mod common;

use common::{realistic_file, top_map, ScratchDir};
use settings::{FogDebugMode, Llsd, SaveMode, SettingsFile, SETTINGS};

fn is_ours(name: &str) -> bool {
    SETTINGS.iter().any(|d| d.name == name)
}

#[test]
fn realistic_file_loads_our_values_and_keeps_foreign_keys() {
    let file = SettingsFile::parse("testdata/settings.xml", realistic_file()).expect("loads");
    let s = &file.settings;
    assert!(s.particle_fog, "<integer>1</integer> is true");
    assert_eq!(s.particle_fog_threshold, 0.6, "full-precision real reads as 0.6f32");
    assert_eq!(s.particle_fog_debug, FogDebugMode::Bounds);
    assert_eq!(s.max_part_count, 8192);
    assert_eq!(s.froxel_history_weight, 0.9);
    let foreign: Vec<&str> = file.foreign_entries().map(|(n, _)| n).collect();
    assert!(foreign.len() >= 40, "only {} foreign keys", foreign.len());
    let expected: Vec<String> =
        top_map(realistic_file()).into_iter().map(|(n, _)| n).filter(|n| !is_ours(n)).collect();
    assert_eq!(foreign, expected, "foreign keys in file order");
}

#[test]
fn load_set_save_loses_nothing() {
    let dir = ScratchDir::new("round-trip");
    let path = dir.join("settings.xml");
    std::fs::write(&path, realistic_file()).expect("write fixture");

    let mut file = SettingsFile::load(&path).expect("loads");
    file.settings.set_text("RenderVKParticleFogStrength", "2.5").expect("valid");
    file.settings.set_text("RenderVKParticleFogDebug", "3").expect("valid");
    file.save(SaveMode::Normal).expect("saves");
    let saved_text = std::fs::read_to_string(&path).expect("read back");

    let original = top_map(realistic_file());
    let saved = top_map(&saved_text);
    let saved_foreign: Vec<&(String, Llsd)> = saved.iter().filter(|(n, _)| !is_ours(n)).collect();
    let original_foreign: Vec<&(String, Llsd)> = original.iter().filter(|(n, _)| !is_ours(n)).collect();
    assert_eq!(saved_foreign.len(), original_foreign.len());
    for (before, after) in original_foreign.iter().zip(&saved_foreign) {
        assert_eq!(before, after, "foreign key {} changed", before.0);
    }

    let reloaded = SettingsFile::load(&path).expect("reloads");
    let mut expected = file.settings.clone();
    // Debug is Persist 0: the session's 3 is not written; the file's entry (2) stays as it was.
    expected.particle_fog_debug = FogDebugMode::Bounds;
    assert_eq!(reloaded.settings, expected);
    assert_eq!(reloaded.settings.particle_fog_strength, 2.5);
    assert!(reloaded.settings.particle_fog && reloaded.settings.max_part_count == 8192);
}

#[test]
fn saved_entries_use_the_viewers_types_and_add_only_changed_persistent_settings() {
    let mut file = SettingsFile::parse("settings.xml", realistic_file()).expect("loads");
    file.settings.particle_fog_attachments = true;
    file.settings.particle_fog_threshold = 0.65;
    file.settings.particle_fog_billow = 0.25;
    file.settings.particle_fog_debug = FogDebugMode::TintAndBounds;
    let saved = top_map(&file.to_xml_string());
    let entry = |name: &str| saved.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());

    let fog = entry("RenderVKParticleFog").expect("non-default, persistent: written");
    assert_eq!(fog.get("Value"), Some(&Llsd::Integer(1)), "Boolean as <integer>1</integer>");
    assert_eq!(fog.get("Type"), Some(&Llsd::String("Boolean".into())));
    assert_eq!(fog.get("Persist"), Some(&Llsd::Integer(1)));
    let threshold = entry("RenderVKParticleFogThreshold").expect("written");
    assert_eq!(threshold.get("Value"), Some(&Llsd::Real(0.65)), "shortest form of 0.65f32");
    let billow = entry("RenderVKParticleFogBillow").expect("new non-default setting appended");
    assert_eq!(billow.get("Value"), Some(&Llsd::Real(0.25)));
    assert_eq!(billow.get("Type"), Some(&Llsd::String("F32".into())));
    let parts = entry("RenderMaxPartCount").expect("written");
    assert_eq!(parts.get("Value"), Some(&Llsd::Integer(8192)));
    assert!(entry("RenderVKParticleFogAttachments").is_some(), "new non-default setting appended");
    let debug = entry("RenderVKParticleFogDebug").expect("held by the file: kept");
    assert_eq!(debug.get("Value"), Some(&Llsd::Integer(2)), "Persist 0: the session's value is not written");
    assert!(entry("RenderVKVolumetricFogHistoryWeight").is_some(), "held by the file at its default: kept");
    assert!(entry("RenderVKParticleFogStrength").is_none(), "never set, default, not held: not added");
    let names: Vec<&str> = saved.iter().map(|(n, _)| n.as_str()).collect();
    let fog_at = names.iter().position(|n| *n == "RenderVKParticleFog");
    let att_at = names.iter().position(|n| *n == "RenderVKParticleFogAttachments");
    assert!(fog_at < att_at, "settings already in the file keep their place; new ones go last");
}

#[test]
fn special_characters_are_escaped_in_the_written_text() {
    let file = SettingsFile::parse("settings.xml", realistic_file()).expect("loads");
    let text = file.to_xml_string();
    assert!(text.starts_with("<?xml version=\"1.0\" ?>\n<llsd>\n<map>\n"), "viewer header");
    assert!(text.ends_with("</map>\n</llsd>\n"), "viewer trailer");
    assert!(text.contains("&lt;Vulkan 1.3&gt; &amp; OpenGL 4.6"), "escaped &<> in a String");
    assert!(text.contains("<key>&lt;friend&gt; &amp; co</key>"), "escaped key in a nested map");
    assert!(text.contains("<binary encoding=\"base64\">3q2+7w==</binary>"));
    assert!(text.contains("<string />"), "empty strings stay empty elements");
}

/// A small deterministic generator (xorshift64) for varied inputs without a dependency.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Characters that stress escaping and whitespace handling.
const NASTY_CHARS: &[char] = &['&', '<', '>', '"', '\'', ' ', '\n', '\t', '\r', 'a', 'Z', 'é', '€', ';', '#'];

fn nasty_string(rng: &mut XorShift) -> String {
    let len = rng.below(12) as usize;
    (0..len).map(|_| NASTY_CHARS[rng.below(NASTY_CHARS.len() as u64) as usize]).collect()
}

fn random_llsd(rng: &mut XorShift, depth: u32) -> Llsd {
    let kinds = if depth == 0 { 8 } else { 10 };
    match rng.below(kinds) {
        0 => Llsd::Undef,
        1 => Llsd::Boolean(rng.below(2) == 1),
        2 => Llsd::Integer(rng.next() as i32),
        3 => Llsd::Real(f64::from_bits(rng.next() >> 2)),
        4 => Llsd::String(nasty_string(rng)),
        5 => Llsd::Uuid(format!("{:08x}-0000-4000-8000-{:012x}", rng.next() as u32, rng.below(1 << 48))),
        6 => Llsd::Uri(format!("https://example.com/?q={}&x=<y>", rng.below(1000))),
        7 => Llsd::Date("2026-11-30T10:00:00Z".to_owned()),
        8 => Llsd::Array((0..rng.below(4)).map(|_| random_llsd(rng, depth - 1)).collect()),
        _ => Llsd::Map((0..rng.below(4)).map(|_| (nasty_string(rng), random_llsd(rng, depth - 1))).collect()),
    }
}

#[test]
fn random_foreign_trees_survive_a_save_and_load() {
    const CASES: usize = 200;
    const MAX_DEPTH: u32 = 3;
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for case in 0..CASES {
        let value = Llsd::Map(vec![
            ("Comment".to_owned(), Llsd::String(nasty_string(&mut rng))),
            ("Persist".to_owned(), Llsd::Integer(1)),
            ("Type".to_owned(), Llsd::String("LLSD".to_owned())),
            ("Value".to_owned(), random_llsd(&mut rng, MAX_DEPTH)),
        ]);
        let mut doc = String::from("<?xml version=\"1.0\" ?>\n<llsd>\n");
        Llsd::Map(vec![(format!("Foreign{case}"), value.clone())]).write_xml(&mut doc, 0);
        doc.push_str("</llsd>\n");
        let file = SettingsFile::parse("case.xml", &doc).expect("written LLSD loads");
        let again = SettingsFile::parse("case.xml", &file.to_xml_string()).expect("reloads");
        let kept: Vec<(&str, &Llsd)> = again.foreign_entries().collect();
        assert_eq!(kept, vec![(format!("Foreign{case}").as_str(), &value)], "case {case}");
    }
}
