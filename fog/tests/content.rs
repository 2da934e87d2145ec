//! Descriptors modelled on real creator content, each with its expected verdict.
//!
//! Every case imitates a kind of build found in Second Life (fog machines, steam vents, chimney
//! plumes, campfires, waterfall mist, sunbeam dust; fireworks, sparks, rain, snow, hearts, glitter,
//! bubbles, leashes, ribbons, beams, confetti). Billboard cases also name the exclusion that must
//! fire (or `None` when it is the soft score that must keep them billboards). On failure the test
//! prints the whole table of scores, factors and exclusions.

mod content_cases;

use content_cases::{billboard_cases, fog_cases, Case, Expect};
use fog::classify::{classify, Assessment};
use fog::{Exclusion, Verdict};
use particles::types::PartFlags;
use settings::Settings;

fn fog_on() -> Settings {
    Settings { particle_fog: true, ..Settings::default() }
}

fn table(rows: &[(&Case, Assessment)]) -> String {
    let mut out = String::from("name                         expect        score  size  speed life  alive  overlap alpha | big faint slow long soft alive | exclusions\n");
    for (c, a) in rows {
        let m = &a.measures;
        let f = &a.factors;
        let ids: Vec<&str> = a.exclusions.iter().map(|e| e.id()).collect();
        out += &format!(
            "{:<28} {:<13} {:>5.2} {:>5.2} {:>5.2} {:>5.1} {:>6.0} {:>7.2} {:>5.3} | {:.2} {:.2} {:.2} {:.2} {:.2} {:.2} | {}\n",
            c.name, format!("{:?}", c.expect).chars().take(13).collect::<String>(), a.score, m.size_m,
            m.speed_m_per_s, m.life_s, m.alive, m.overlap, m.alpha, f.big, f.faint, f.slow, f.long_lived,
            f.soft, f.alive, ids.join(",")
        );
    }
    out
}

#[test]
fn real_content_gets_the_expected_verdicts() {
    let settings = fog_on();
    let cases: Vec<Case> = fog_cases().into_iter().chain(billboard_cases()).collect();
    assert!(cases.len() >= 25, "the table must hold at least 25 descriptors");
    let rows: Vec<(&Case, Assessment)> =
        cases.iter().map(|c| (c, classify(&c.sys, &c.ctx, &settings))).collect();
    let mut failures = Vec::new();
    for (c, a) in &rows {
        let ok = match c.expect {
            Expect::Fog => a.exclusions.is_empty() && a.score >= settings.particle_fog_threshold,
            Expect::Billboard(Some(x)) => a.exclusions.contains(x),
            Expect::Billboard(None) => {
                a.exclusions.is_empty() && a.score < settings.particle_fog_threshold - 0.2
            }
        };
        if !ok {
            failures.push(c.name);
        }
    }
    if std::env::var_os("FOG_PRINT_TABLE").is_some() {
        println!("{}", table(&rows));
    }
    assert!(failures.is_empty(), "wrong verdicts for {failures:?}\n{}", table(&rows));
}

#[test]
fn fullbright_alone_does_not_exclude_but_adds_emission() {
    let settings = fog_on();
    let haze = fog_cases().into_iter().find(|c| c.name == "sunbeam dust haze").expect("case");
    let lit = classify(&haze.sys, &haze.ctx, &settings);
    let mut unlit_sys = haze.sys;
    unlit_sys.part.flags = PartFlags(haze.sys.part.flags.0 & !PartFlags::EMISSIVE);
    let unlit = classify(&unlit_sys, &haze.ctx, &settings);
    assert!(lit.exclusions.is_empty());
    assert_eq!(lit.score, unlit.score, "EMISSIVE must not change the score");
    assert!(lit.emission > 0.1, "fullbright haze emits: {}", lit.emission);
    // Its mean luminance (0.2126 + 0.7152*0.9 + 0.0722*0.7 = 0.907) is bright, so unlit haze still
    // emits a little, but less than fullbright.
    assert!(unlit.emission > 0.0 && unlit.emission < lit.emission);
    let grey = fog_cases().into_iter().find(|c| c.name == "smoke column").expect("case");
    assert_eq!(classify(&grey.sys, &grey.ctx, &settings).emission, 0.0, "dark smoke emits nothing");
}

#[test]
fn settings_switches_exclude_everything() {
    let case = fog_cases().into_iter().next().expect("a case");
    let off = Settings::default();
    assert!(!off.particle_fog, "the master toggle defaults off");
    let a = classify(&case.sys, &case.ctx, &off);
    assert!(a.exclusions.contains(Exclusion::ParticleFogOff));
    let no_host = Settings { volumetric_fog: false, ..fog_on() };
    assert!(classify(&case.sys, &case.ctx, &no_host).exclusions.contains(Exclusion::VolumetricFogOff));
    let mut worn = case.ctx;
    worn.attachment = true;
    assert!(classify(&case.sys, &worn, &fog_on()).exclusions.contains(Exclusion::Attachment));
    let allow = Settings { particle_fog_attachments: true, ..fog_on() };
    assert!(classify(&case.sys, &worn, &allow).exclusions.is_empty());
    let verdict = fog::Explanation::one_shot(&case.sys, &classify(&case.sys, &case.ctx, &off), &off).verdict;
    assert_eq!(verdict, Verdict::Billboard);
}

#[test]
fn exclusions_have_unique_ids_and_sentences_with_value_and_limit() {
    let ids: std::collections::BTreeSet<&str> = Exclusion::ALL.iter().map(|e| e.id()).collect();
    assert_eq!(ids.len(), Exclusion::ALL.len(), "ids are unique");
    assert!(ids.iter().all(|id| id.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
    let settings = fog_on();
    let find = |name: &str| billboard_cases().into_iter().find(|c| c.name == name).expect("case");
    let rain = find("rain");
    let a = classify(&rain.sys, &rain.ctx, &settings);
    let e = fog::Explanation::one_shot(&rain.sys, &a, &settings);
    let fast = e.exclusions.iter().find(|n| n.id == "too_fast").expect("too_fast fired");
    let thrown = format!("{:.1} m/s", a.measures.ballistic_speed_m_per_s);
    assert!(fast.sentence.contains(&thrown), "{}", fast.sentence);
    assert!(fast.sentence.contains("faster than the 4 m/s the design converts"), "{}", fast.sentence);
    let sparks = find("campfire sparks");
    let a = classify(&sparks.sys, &sparks.ctx, &settings);
    let e = fog::Explanation::one_shot(&sparks.sys, &a, &settings);
    let streak = e.exclusions.iter().find(|n| n.id == "streaks").expect("streaks fired");
    let sizes = format!("particles move {:.1} sizes per second", a.measures.sizes_per_s);
    assert!(
        streak.sentence.contains(&sizes) && streak.sentence.contains("they streak"),
        "{}",
        streak.sentence
    );
    let puff = find("one-shot smoke puff");
    let a = classify(&puff.sys, &puff.ctx, &settings);
    let e = fog::Explanation::one_shot(&puff.sys, &a, &settings);
    let short = e.exclusions.iter().find(|n| n.id == "short_lived").expect("short_lived fired");
    assert!(short.sentence.contains("source dies after 0.50 s"), "{}", short.sentence);
    assert!(short.sentence.contains("shorter than the 1.5 s the design converts"), "{}", short.sentence);
}
