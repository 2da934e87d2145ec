//! The viewer's graphics-preferences panel (egui), in the viewer's words: each control is a
//! setting, shown with its name, type, range, default and comment as `particle-fog settings list`
//! shows them; the stats of the newest frame; the particle systems with `classify`'s verdict,
//! score, deciding reason and way out, and the per-object override.
//!
//! The panel only reads the viewer's state and returns [`Action`]s; the session applies them
//! before the next frame (the same path a script's events take).

use egui::{Color32, RichText, Ui};
use fog::Override;
use settings::{FogDebugMode, SettingType, SettingValue, Settings};

use super::camera::CameraControl;
use super::stats::{self, Stats};

/// Width of the panel, points.
pub const PANEL_WIDTH: f32 = 360.0;

/// The settings of the panel's "Particle fog" section, in order.
pub const FOG_CONTROLS: &[&str] = &[
    "RenderVKParticleFog",
    "RenderVKVolumetricFog",
    "RenderVKParticleFogStrength",
    "RenderVKParticleFogThreshold",
    "RenderVKParticleFogDensity",
    "RenderVKParticleFogBillow",
    "RenderVKParticleFogBillowScale",
    "RenderVKParticleFogBillowSpeed",
];

/// The settings of the "Bricks and march" section.
pub const BRICK_CONTROLS: &[&str] = &[
    "RenderVKParticleFogBrickBudgetMB",
    "RenderVKParticleFogVoxelSize",
    "RenderVKParticleFogRange",
    "RenderVKParticleFogMarchDivisor",
];

/// The debug views with their names, in setting order.
pub const DEBUG_VIEWS: [(FogDebugMode, &str); 6] = [
    (FogDebugMode::Off, "off"),
    (FogDebugMode::Tint, "tint per system"),
    (FogDebugMode::Bounds, "brick bounds"),
    (FogDebugMode::TintAndBounds, "tint and bounds"),
    (FogDebugMode::Transmittance, "transmittance"),
    (FogDebugMode::Coverage, "coverage"),
];

/// One particle system as the list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemRow {
    /// The system's index (its particle pool slot).
    pub index: usize,
    /// The scene's name for it.
    pub name: String,
    /// Its id, `OBJECT[#LINK]`.
    pub id: String,
    /// `fog` or `billboard`.
    pub verdict: String,
    /// The soft score, 0..1.
    pub score: f32,
    /// Its weight toward fog this frame, 0..1.
    pub weight: f32,
    /// The deciding reason, as `classify` words it.
    pub decision: String,
    /// What would change the verdict.
    pub to_change: String,
    /// The rule that decided.
    pub rule: String,
    /// The override in force.
    pub override_in_force: Override,
    /// Bricks it holds in the newest frame.
    pub bricks: u32,
}

/// A change the person asked for in the panel.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A setting's new value.
    Set(&'static str, SettingValue),
    /// A system's override.
    Override(usize, Override),
    /// Select a system (or none).
    Select(Option<usize>),
    /// Save the settings and overrides now.
    Save,
    /// Back to the scene's camera path.
    ResetView,
    /// Follow the scene's camera path (or fly).
    Follow(bool),
    /// Run (or stop) the scene's time.
    Playing(bool),
    /// Jump the scene's time, s.
    Time(f32),
}

/// What the panel shows.
pub struct PanelView<'a> {
    /// The live settings.
    pub settings: &'a Settings,
    /// Frame, CPU and GPU times and the fog's counts.
    pub stats: &'a Stats,
    /// The particle systems.
    pub systems: &'a [SystemRow],
    /// The selected system.
    pub selected: Option<usize>,
    /// The camera and clock.
    pub control: &'a CameraControl,
    /// The settings file and the last save's outcome.
    pub status: &'a str,
}

/// Draws the panel on the right of `ui`; returns what the person changed.
pub fn draw(ui: &mut Ui, view: &PanelView<'_>) -> Vec<Action> {
    let mut actions = Vec::new();
    egui::Panel::right("view.panel").default_size(PANEL_WIDTH).show(ui, |ui| {
        egui::ScrollArea::vertical().show(ui, |ui| {
            ui.heading("Particle fog");
            for name in FOG_CONTROLS {
                setting_control(ui, view.settings, name, &mut actions);
            }
            debug_view_control(ui, view.settings, &mut actions);
            egui::CollapsingHeader::new("Bricks and march").default_open(true).show(ui, |ui| {
                for name in BRICK_CONTROLS {
                    setting_control(ui, view.settings, name, &mut actions);
                }
            });
            egui::CollapsingHeader::new("Camera and time").default_open(true).show(ui, |ui| {
                time_controls(ui, view.control, &mut actions);
            });
            egui::CollapsingHeader::new("Stats")
                .default_open(true)
                .show(ui, |ui| stats_section(ui, view.stats));
            egui::CollapsingHeader::new("Particle systems").default_open(true).show(ui, |ui| {
                systems_section(ui, view, &mut actions);
            });
            ui.separator();
            if ui.button("Save settings").clicked() {
                actions.push(Action::Save);
            }
            ui.small(view.status);
        });
    });
    actions
}

/// Settings whose change remakes the brick pool's GPU memory: a drag applies them once, when it
/// ends, not at every step.
const ON_RELEASE: &[&str] = &["RenderVKParticleFogBrickBudgetMB", "RenderVKParticleFogVoxelSize"];

/// One setting's control: a checkbox or a slider over its range, its name, and the facts
/// `settings list` prints.
fn setting_control(ui: &mut Ui, settings: &Settings, name: &'static str, actions: &mut Vec<Action>) {
    let (Some(desc), Ok(value)) = (settings::find(name), settings.get(name)) else { return };
    let new = if let SettingValue::Boolean(mut on) = value {
        ui.checkbox(&mut on, name).changed().then_some(SettingValue::Boolean(on))
    } else {
        ui.label(name);
        let (min, max) = (desc.min.as_f64(), desc.max.as_f64());
        let integer = !matches!(value, SettingValue::F32(_));
        slider(ui, name, value.as_f64(), (min, max), integer).map(|v| match value {
            SettingValue::U32(_) => SettingValue::U32(v.round().clamp(min, max) as u32),
            SettingValue::S32(_) => SettingValue::S32(v.round().clamp(min, max) as i32),
            _ => SettingValue::F32(v as f32),
        })
    };
    ui.small(RichText::new(facts(desc)).weak());
    if let Some(value) = new {
        actions.push(Action::Set(name, value));
    }
}

/// A slider for setting `name` at `value` over `min..=max` (logarithmic where the range spans a
/// factor of 100 or more); returns the new value to apply. For [`ON_RELEASE`] settings the
/// dragged value is held in egui's memory and returned when the drag ends.
fn slider(ui: &mut Ui, name: &str, value: f64, (min, max): (f64, f64), integer: bool) -> Option<f64> {
    let id = egui::Id::new(("view.slider", name));
    let held = ON_RELEASE.contains(&name);
    let mut v = if held { ui.data(|d| d.get_temp::<f64>(id)).unwrap_or(value) } else { value };
    let mut widget = egui::Slider::new(&mut v, min..=max).logarithmic(min > 0.0 && max / min >= 100.0);
    if integer {
        widget = widget.integer();
    }
    let response = ui.add(widget);
    if !held {
        return response.changed().then_some(v);
    }
    if response.dragged() {
        ui.data_mut(|d| d.insert_temp(id, v));
        return None;
    }
    ui.data_mut(|d| d.remove::<f64>(id));
    (response.changed() || response.drag_stopped()).then_some(v)
}

/// `(F32, 0..=4, default 1) comment`, as `settings list` words a setting.
pub fn facts(desc: &settings::SettingDesc) -> String {
    let range = match desc.ty {
        SettingType::Boolean => String::new(),
        _ => format!(", {}", desc.range_text()),
    };
    format!("({}{range}, default {}) {}", desc.ty.as_str(), desc.default, desc.comment)
}

/// The debug view (`RenderVKParticleFogDebug`) as a list of named choices.
fn debug_view_control(ui: &mut Ui, settings: &Settings, actions: &mut Vec<Action>) {
    const NAME: &str = "RenderVKParticleFogDebug";
    let current = settings.particle_fog_debug;
    let shown = DEBUG_VIEWS.iter().find(|(m, _)| *m == current).map_or("?", |(_, n)| n);
    ui.label(NAME);
    egui::ComboBox::from_id_salt(NAME).selected_text(shown).show_ui(ui, |ui| {
        for (mode, label) in DEBUG_VIEWS {
            if ui.selectable_label(mode == current, format!("{} {label}", mode.as_i32())).clicked() {
                actions.push(Action::Set(NAME, SettingValue::S32(mode.as_i32())));
            }
        }
    });
    if current.writes_transmittance() || current.writes_coverage() {
        ui.small("written as an image beside each --screenshot (NAME_transmittance.png, NAME_coverage.png), not shown in the window");
    }
    if let Some(desc) = settings::find(NAME) {
        ui.small(RichText::new(facts(desc)).weak());
    }
}

/// Follow / fly, play / pause, the time slider and reset view.
fn time_controls(ui: &mut Ui, control: &CameraControl, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        let mut follow = control.following();
        if ui.checkbox(&mut follow, "follow the scene's camera (F)").changed() {
            actions.push(Action::Follow(follow));
        }
        if ui.button("reset view (R)").clicked() {
            actions.push(Action::ResetView);
        }
    });
    ui.horizontal(|ui| {
        let label = if control.playing { "pause (Space)" } else { "play (Space)" };
        if ui.button(label).clicked() {
            actions.push(Action::Playing(!control.playing));
        }
        let mut t = control.time_s;
        let slider = egui::Slider::new(&mut t, 0.0..=control.time_s.max(60.0)).text("time, s");
        if ui.add(slider).changed() {
            actions.push(Action::Time(t));
        }
    });
    ui.small(format!(
        "fly: W A S D, Q E down/up, right button to look, wheel for speed ({:.2} m/s); Tab hides \
         the panel; Left/Right: time -/+ 1 s; Esc closes",
        control.speed_m_s
    ));
}

/// Frame and CPU times, the GPU graph and slowest passes, and the fog's counts.
fn stats_section(ui: &mut Ui, s: &Stats) {
    ui.label(format!(
        "frame {:.2} ms, CPU {:.2} ms, GPU {:.3} ms (means of the last {} frames)",
        stats::mean(&s.frame_ms),
        stats::mean(&s.cpu_ms),
        stats::mean(&s.gpu_ms),
        s.frame_ms.len()
    ));
    graph(ui, &s.gpu_ms);
    for p in s.slowest() {
        ui.small(format!("{:>8.3} ms  {}", p.ms.back().copied().unwrap_or(0.0), p.name));
    }
    let Some(f) = &s.fog else {
        ui.small("particle fog: off (no system converts, or RenderVKParticleFog is off)");
        return;
    };
    ui.label(format!(
        "carriers {} ({} poisoned, {} too large)",
        f.carriers, f.carriers_poisoned, f.carriers_too_large
    ));
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    ui.label(format!(
        "bricks {} used, {:.1} MiB allocated, budget {} ({:.1} MiB)",
        f.bricks_used,
        mib(f.brick_bytes_allocated),
        f.bricks_budget,
        mib(f.brick_bytes_budget)
    ));
    ui.label(format!("mass {:.4} m2 expected, {:.4} m2 splatted", f.mass_expected_m2, f.mass_splatted_m2));
    for b in f.bricks_by_system.iter().take(3) {
        ui.small(format!("{} bricks: {}", b.bricks, b.name));
    }
}

/// A small line graph of `values` (ms), scaled to their maximum.
fn graph(ui: &mut Ui, values: &std::collections::VecDeque<f64>) {
    let width = ui.available_width().min(PANEL_WIDTH);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(width, 40.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, Color32::from_black_alpha(120));
    let top = values.iter().copied().fold(1e-6, f64::max);
    let n = stats::GRAPH_FRAMES.max(2) as f32;
    let points: Vec<egui::Pos2> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = rect.left() + rect.width() * i as f32 / (n - 1.0);
            egui::pos2(x, rect.bottom() - rect.height() * (*v / top) as f32)
        })
        .collect();
    if points.len() > 1 {
        ui.painter().line(points, egui::Stroke::new(1.0, Color32::LIGHT_GREEN));
    }
    ui.small(format!("GPU ms per frame, top of graph {top:.3} ms"));
}

/// The systems list; the selected one with its reasons and override choices.
fn systems_section(ui: &mut Ui, view: &PanelView<'_>, actions: &mut Vec<Action>) {
    if view.systems.is_empty() {
        ui.small("no particle systems (yet)");
    }
    for row in view.systems {
        let selected = view.selected == Some(row.index);
        let text =
            format!("{} {}: {} {:.2}, weight {:.2}", row.index, row.name, row.verdict, row.score, row.weight);
        if ui.selectable_label(selected, text).clicked() {
            actions.push(Action::Select(if selected { None } else { Some(row.index) }));
        }
        if !selected {
            continue;
        }
        ui.small(format!("why: {}", row.decision));
        if !row.to_change.is_empty() {
            ui.small(format!("to change: {}", row.to_change));
        }
        ui.small(format!("id {}, {} bricks, rule: {}", row.id, row.bricks, row.rule));
        ui.horizontal(|ui| {
            for (o, label) in [
                (Override::Auto, "automatic"),
                (Override::Fog, "always fog"),
                (Override::Billboards, "never fog"),
            ] {
                if ui.selectable_label(row.override_in_force == o, label).clicked() {
                    actions.push(Action::Override(row.index, o));
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_is_a_setting_and_its_facts_are_those_settings_list_prints() {
        for name in FOG_CONTROLS.iter().chain(BRICK_CONTROLS) {
            assert!(settings::find(name).is_some(), "{name}");
        }
        let desc = settings::find("RenderVKParticleFogDensity").expect("density");
        let listed = settings::cli::list_text(&settings::SettingsFile::new("s.xml"));
        let facts = facts(desc);
        let range = desc.range_text();
        assert!(facts.contains(&range) && listed.contains(&range), "{facts}");
        assert!(facts.contains(desc.comment) && listed.contains(desc.comment));
    }
}
