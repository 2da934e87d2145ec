//! Per-object overrides: the classifier applies them at once with a bounded cross-fade, "always
//! fog" passes what a person may judge but never ribbons, targets or HUD, the explanations name
//! the rule and the way out, and the overrides file keeps what it does not know and refuses a
//! corrupt file.

use fog::classify::hysteresis::CROSSFADE_PER_S;
use fog::classify::{classify, Classifier, Override, SystemContext, SystemKey, TextureVerdict, Verdict};
use fog::overrides_file::{beside, OverridesFile, FILE_NAME};
use fog::report::{apply_overrides, assess_all, report_json, ReportInput, UnknownTexturePolicy};
use fog::Explanation;
use glam::{Vec2, Vec4};
use particles::types::{pattern, PartFlags, PartSysData};
use settings::{SaveMode, Settings};

const DT_S: f32 = 1.0 / 60.0;

/// A pond mist that converts (every factor 1 with a soft texture).
fn mist() -> PartSysData {
    let mut s =
        PartSysData { pattern: pattern::DROP, burst_rate: 1.0, burst_part_count: 2, ..Default::default() };
    s.part.max_age = 15.0;
    s.part.start_scale = Vec2::splat(3.0);
    s.part.start_color = Vec4::new(0.8, 0.8, 0.8, 0.2);
    s
}

/// The same mist in 0.3 m puffs: `too_small`.
fn small_mist() -> PartSysData {
    let mut s = mist();
    s.part.start_scale = Vec2::splat(0.3);
    s
}

fn soft() -> SystemContext {
    SystemContext { texture: Some(TextureVerdict::ASSUMED_SOFT), ..Default::default() }
}

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

/// Runs `frames` updates; returns the largest change of weight from one frame to the next.
fn run(c: &mut Classifier<u32>, id: u32, frames: usize) -> f32 {
    let s = fog_on();
    let mut last = c.weight(&id);
    let mut largest = 0.0f32;
    for _ in 0..frames {
        c.update(&s, 1, DT_S);
        largest = largest.max((c.weight(&id) - last).abs());
        last = c.weight(&id);
    }
    largest
}

#[test]
fn always_fog_converts_a_small_system_through_a_cross_fade_and_auto_takes_it_back() {
    let mut c = Classifier::new();
    c.upsert(7u32, &small_mist(), soft());
    run(&mut c, 7, 90);
    assert_eq!(c.weight(&7), 0.0, "0.3 m puffs stay billboards");
    assert!(c.set_override(&7, Override::Fog));
    assert!(c.is_converted(&7), "the decision moves at once");
    let step = run(&mut c, 7, 30);
    assert!(
        step <= DT_S * CROSSFADE_PER_S + 1e-6,
        "no frame changes the weight by more than the fade step: {step}"
    );
    let half = c.weight(&7);
    assert!((half - 0.5).abs() < 0.02, "half a second in, half faded: {half}");
    run(&mut c, 7, 60);
    assert_eq!(c.weight(&7), 1.0);
    let why = c.explain(&7).expect("explained");
    assert_eq!((why.verdict, why.rule, why.override_in_force), (Verdict::Fog, "override", Override::Fog));
    assert!(why.decision.contains("always fog") && why.decision.contains("too_small"), "{}", why.decision);
    assert!(c.set_override(&7, Override::Auto));
    let step = run(&mut c, 7, 90);
    assert!(step <= DT_S * CROSSFADE_PER_S + 1e-6, "{step}");
    assert_eq!(c.weight(&7), 0.0, "back to what the classifier decides");
    assert!(!c.set_override(&8, Override::Fog), "an unknown system");
}

#[test]
fn never_fog_keeps_a_fog_system_billboards_and_auto_brings_the_fog_back() {
    let mut c = Classifier::new();
    c.upsert(1u32, &mist(), soft());
    run(&mut c, 1, 90);
    assert_eq!(c.weight(&1), 1.0);
    c.set_override(&1, Override::Billboards);
    let step = run(&mut c, 1, 90);
    assert!(step <= DT_S * CROSSFADE_PER_S + 1e-6, "{step}");
    assert_eq!(c.weight(&1), 0.0);
    let why = c.explain(&1).expect("explained");
    assert_eq!((why.verdict, why.rule), (Verdict::Billboard, "override"));
    c.set_override(&1, Override::Auto);
    run(&mut c, 1, 90);
    assert_eq!(c.weight(&1), 1.0, "the automatic decision kept running beneath the override");
}

#[test]
fn always_fog_never_passes_ribbons_targets_or_hud_and_says_so() {
    let mut ribbon = mist();
    ribbon.part.flags = PartFlags(PartFlags::RIBBON);
    let mut target = mist();
    target.part.flags = PartFlags(PartFlags::TARGET_POS);
    let hud = SystemContext { hud: true, ..soft() };
    for (name, sys, ctx) in [("ribbon", ribbon, soft()), ("target_pos", target, soft()), ("hud", mist(), hud)]
    {
        let mut c = Classifier::new();
        c.upsert(0u32, &sys, ctx);
        c.set_override(&0, Override::Fog);
        run(&mut c, 0, 120);
        assert_eq!(c.weight(&0), 0.0, "{name} stays billboards under always fog");
        let why = c.explain(&0).expect("explained");
        assert_eq!(why.rule, name);
        assert!(why.decision.contains("the per-object override to fog does not apply"), "{}", why.decision);
    }
}

#[test]
fn an_agreed_exclusion_is_named_in_plain_words_with_the_override_as_a_way_out() {
    let s = fog_on();
    let sys = small_mist();
    let a = classify(&sys, &soft(), &s);
    let why = Explanation::one_shot(&sys, &a, &s);
    assert_eq!(why.rule, "too_small");
    assert_eq!(why.decision, "particles are 0.30 m: smaller than the 0.5 m the design converts");
    assert!(why.to_change.contains("per-object override to fog"), "{}", why.to_change);
    let mut ribbon = mist();
    ribbon.part.flags = PartFlags(PartFlags::RIBBON);
    let why = Explanation::one_shot(&ribbon, &classify(&ribbon, &soft(), &s), &s);
    assert!(why.to_change.contains("no per-object override makes it fog"), "{}", why.to_change);
}

fn input(source: &str, system: PartSysData) -> ReportInput {
    ReportInput {
        source: source.into(),
        system,
        texture: "puff".into(),
        attachment: false,
        hud: false,
        key: SystemKey::from_name(source),
        override_in_force: Override::Auto,
    }
}

#[test]
fn the_report_takes_overrides_by_name_or_key_and_the_json_carries_rule_and_override() {
    let mut inputs = [input("small", small_mist()), input("mist", mist())];
    let mist_key = SystemKey::from_name("mist");
    let given = ["small=fog".to_owned(), format!("{mist_key}=billboards")];
    apply_overrides(&mut inputs, None, &given).expect("applies");
    let rows =
        assess_all(&inputs, |_| Some(TextureVerdict::ASSUMED_SOFT), UnknownTexturePolicy::Unknown, &fog_on());
    let json = report_json(&rows);
    let systems = json["systems"].as_array().expect("systems");
    assert_eq!(systems[0]["verdict"], "fog");
    assert_eq!(systems[0]["weight"], 1.0);
    assert_eq!(systems[0]["override"], "fog");
    assert_eq!(systems[0]["rule"], "override");
    assert_eq!(systems[0]["exclusions"][0], "too_small", "the exclusion is still listed");
    assert_eq!(systems[1]["verdict"], "billboard");
    assert_eq!(systems[1]["override"], "billboards");
    assert_eq!(systems[1]["id"], mist_key.to_string());
    let err = apply_overrides(&mut inputs, None, &["chimney=fog".to_owned()]).expect_err("no such system");
    assert!(err.to_string().contains("no system has that id or name"), "{err}");
    assert!(apply_overrides(&mut inputs, None, &["small=always".to_owned()]).is_err());
}

/// A file with an override, a foreign top-level key, a foreign link field and a foreign object key.
const USER_FILE: &str = r#"<?xml version="1.0" ?>
<llsd>
<map>
    <key>Version</key>
    <integer>3</integer>
    <key>5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e</key>
    <map>
      <key>2</key>
      <map>
        <key>Override</key>
        <string>billboards</string>
        <key>Note</key>
        <string>the chimney's sparks &amp; smoke</string>
      </map>
      <key>Label</key>
      <string>chimney</string>
    </map>
</map>
</llsd>
"#;

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fog-overrides-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn the_file_survives_a_save_and_load_and_keeps_what_it_does_not_know() {
    let dir = temp_dir("round-trip");
    let path = beside(&dir.join("settings.xml"));
    assert_eq!(path, dir.join(FILE_NAME));
    std::fs::write(&path, USER_FILE).expect("write");
    let mut file = OverridesFile::open(&path).expect("loads");
    let chimney: SystemKey = "5e120ba1-1c7b-4f0e-9d0e-3f0a2b4c6d8e#2".parse().expect("key");
    assert_eq!(file.get(&chimney), Override::Billboards);
    let mist = SystemKey::from_name("mist");
    file.set(mist, Override::Fog);
    file.set(chimney, Override::Auto);
    file.save(SaveMode::Normal).expect("saves");
    let back = OverridesFile::load(&path).expect("loads again");
    assert_eq!(back.get(&mist), Override::Fog);
    assert_eq!(back.get(&chimney), Override::Auto);
    let text = std::fs::read_to_string(&path).expect("read");
    for kept in [
        "<key>Version</key>",
        "<integer>3</integer>",
        "<key>Note</key>",
        "sparks &amp; smoke",
        "<key>Label</key>",
    ] {
        assert!(text.contains(kept), "{kept} kept:\n{text}");
    }
    assert!(!text.contains("billboards"), "the chimney's override is gone:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_corrupt_file_is_refused_and_left_untouched() {
    let dir = temp_dir("corrupt");
    let path = dir.join(FILE_NAME);
    let cases = [
        USER_FILE.replace("<string>billboards</string>", "<string>sometimes</string>"),
        USER_FILE
            .replace("<key>2</key>\n      <map>", "<key>2</key>\n      <string>fog</string>\n      <map>"),
        USER_FILE.replace("</llsd>", ""),
        "<llsd><array/></llsd>".to_owned(),
    ];
    for text in cases {
        std::fs::write(&path, &text).expect("write");
        let err = OverridesFile::open(&path).expect_err("refused");
        assert!(err.to_string().contains(FILE_NAME), "names the file: {err}");
        let (mut file, err) = OverridesFile::open_or_defaults(&path);
        assert!(err.is_some());
        file.set(SystemKey::from_name("mist"), Override::Fog);
        assert!(file.save(SaveMode::Normal).is_err(), "no save over the unreadable file");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), text, "left untouched");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
