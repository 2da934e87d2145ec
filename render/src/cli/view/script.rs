//! `view --script FILE`: timed input events, one per line, applied at the start of the frame
//! they name (frame 0 is the first rendered frame), in file order within a frame. The same run
//! of a script gives the same frames: nothing depends on the wall clock.
//!
//! ```text
//! # a comment; blank lines are skipped
//! 0   set RenderVKParticleFog true       # a setting, as its panel control sets it
//! 12  toggle RenderVKVolumetricFog        # flips a Boolean setting
//! 20  debug bounds                        # off|tint|bounds|both|transmittance|coverage
//! 30  override "chimney smoke" billboards # SYSTEM (index, name or id) auto|fog|billboards
//! 31  select 2                            # highlights a system (the per-system tint)
//! 40  key W                               # pressed for this frame; key_down / key_up hold it
//! 41  mouse 100 80                        # the pointer, in pixels
//! 41  button_down right                   # left|right; button_up; click X Y (left, at X Y)
//! 42  scroll 2                            # wheel steps (fly speed, or the panel's scroll)
//! 50  resize 97 31                        # the window's (or image's) size; minimise; restore
//! 60  panel off                           # panel on|off
//! 61  pause                               # play; time SECONDS; follow on|off; reset_view
//! 70  save                                # writes settings.xml and the overrides file now
//! 80  close                               # ends the run (settings saved)
//! ```
//!
//! Words are separated by spaces; a word in double quotes may hold spaces (a system's name).
//!
//! Keys: W A S D Q E (fly), Space (pause/play), F (follow the scene's camera path), R (reset
//! view), Tab (panel), Left / Right (scene time -/+ 1 s), Escape (close).

use std::path::Path;

use fog::Override;
use settings::FogDebugMode;

/// A key the viewer acts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    /// Fly forward.
    W,
    /// Fly left.
    A,
    /// Fly back.
    S,
    /// Fly right.
    D,
    /// Fly down.
    Q,
    /// Fly up.
    E,
    /// Pause or play the scene's time.
    Space,
    /// Follow the scene's camera path (or stop following).
    F,
    /// Reset the view: back to the scene's camera path.
    R,
    /// Show or hide the panel.
    Tab,
    /// Scene time back 1 s.
    Left,
    /// Scene time on 1 s.
    Right,
    /// Close the viewer.
    Escape,
}

impl Key {
    /// Every key with its script name.
    pub const ALL: [(Key, &'static str); 13] = [
        (Key::W, "W"),
        (Key::A, "A"),
        (Key::S, "S"),
        (Key::D, "D"),
        (Key::Q, "Q"),
        (Key::E, "E"),
        (Key::Space, "Space"),
        (Key::F, "F"),
        (Key::R, "R"),
        (Key::Tab, "Tab"),
        (Key::Left, "Left"),
        (Key::Right, "Right"),
        (Key::Escape, "Escape"),
    ];

    fn parse(text: &str) -> Option<Key> {
        Key::ALL.iter().find(|(_, n)| n.eq_ignore_ascii_case(text)).map(|(k, _)| *k)
    }
}

/// A mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// The left button (the panel's widgets).
    Left,
    /// The right button (mouse look while held).
    Right,
}

/// One input event.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A setting's new value (checked against its type and range when the script is read).
    Set(String, String),
    /// Flip a Boolean setting.
    Toggle(String),
    /// The debug view.
    Debug(FogDebugMode),
    /// A system's per-object override.
    Override(String, Override),
    /// Select (highlight) a system.
    Select(String),
    /// A key pressed and released within the frame (`None`), pressed (`Some(true)`) or
    /// released (`Some(false)`).
    Key(Key, Option<bool>),
    /// The pointer moved to (x, y) pixels.
    Mouse(f32, f32),
    /// A button pressed (`true`) or released.
    Button(Button, bool),
    /// A left click at (x, y) pixels.
    Click(f32, f32),
    /// Wheel steps (up positive).
    Scroll(f32),
    /// New size, pixels (each 1..=16384).
    Resize(u32, u32),
    /// Minimised (nothing is rendered until restored).
    Minimise,
    /// Restored after minimising.
    Restore,
    /// Show (`true`) or hide the panel.
    Panel(bool),
    /// Stop the scene's time.
    Pause,
    /// Run the scene's time.
    Play,
    /// Jump the scene's time to this many seconds.
    Time(f32),
    /// Follow the scene's camera path (`true`) or fly.
    Follow(bool),
    /// Back to the scene's camera path.
    ResetView,
    /// Save the settings and overrides now.
    Save,
    /// End the run.
    Close,
}

/// A script: events with their frame and line, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    events: Vec<(u32, usize, Event)>,
}

/// The largest script read, bytes.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;

impl Script {
    /// Reads and parses `path` (a regular file of at most [`MAX_SCRIPT_BYTES`]).
    pub fn load(path: &Path) -> anyhow::Result<Script> {
        let text = crate::input::read_text(path, MAX_SCRIPT_BYTES, "a viewer script")?;
        Script::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
    }

    /// Parses script text; an error names the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Script, String> {
        let mut events = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words = split_words(line).map_err(|e| format!("line {}: {e}", i + 1))?;
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            let frame = words[0]
                .parse::<u32>()
                .map_err(|_| format!("line {}: {:?} is not a frame number", i + 1, words[0]))?;
            let event = parse_event(&words[1..]).map_err(|e| format!("line {}: {e}", i + 1))?;
            events.push((frame, i + 1, event));
        }
        events.sort_by_key(|(frame, line, _)| (*frame, *line));
        Ok(Script { events })
    }

    /// The events of frame `frame`, in file order.
    pub fn at(&self, frame: u32) -> impl Iterator<Item = &Event> {
        self.events.iter().filter(move |(f, _, _)| *f == frame).map(|(_, _, e)| e)
    }

    /// The last frame with an event (0 for none).
    pub fn last_frame(&self) -> u32 {
        self.events.last().map_or(0, |(f, _, _)| *f)
    }

    /// Whether the script ends the run itself.
    pub fn closes(&self) -> bool {
        self.events.iter().any(|(_, _, e)| *e == Event::Close)
    }
}

/// The words of a line: separated by whitespace, a double-quoted word kept whole.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').ok_or("a quote is not closed")?;
                (&quoted[..end], &quoted[end + 1..])
            }
            None => rest.split_at(rest.find(char::is_whitespace).unwrap_or(rest.len())),
        };
        words.push(word.to_owned());
        rest = after.trim_start();
    }
    Ok(words)
}

/// Each event's name and the number of words after it.
const ARITY: &[(&str, usize)] = &[
    ("set", 2),
    ("toggle", 1),
    ("debug", 1),
    ("override", 2),
    ("select", 1),
    ("key", 1),
    ("key_down", 1),
    ("key_up", 1),
    ("mouse", 2),
    ("click", 2),
    ("button_down", 1),
    ("button_up", 1),
    ("scroll", 1),
    ("resize", 2),
    ("panel", 1),
    ("follow", 1),
    ("time", 1),
    ("minimise", 0),
    ("minimize", 0),
    ("restore", 0),
    ("pause", 0),
    ("play", 0),
    ("reset_view", 0),
    ("save", 0),
    ("close", 0),
];

/// One event from the words after the frame number.
fn parse_event(words: &[&str]) -> Result<Event, String> {
    let (&command, args) = words.split_first().ok_or("a frame number with no event")?;
    let (_, n) = ARITY
        .iter()
        .find(|(name, _)| *name == command)
        .ok_or(format!("{command:?} is not an event (see `particle-fog view --help`)"))?;
    if args.len() != *n {
        return Err(format!("{command} takes {n} argument(s), not {}", args.len()));
    }
    match command {
        "set" | "toggle" | "debug" | "override" | "select" => setting_event(command, args),
        "key" | "key_down" | "key_up" | "mouse" | "click" | "button_down" | "button_up" | "scroll" => {
            input_event(command, args)
        }
        _ => view_event(command, args),
    }
}

/// A setting, the debug view, or a system's override or selection.
fn setting_event(command: &str, args: &[&str]) -> Result<Event, String> {
    let defaults = settings::Settings::default();
    Ok(match command {
        "set" => {
            defaults.clone().set_text(args[0], args[1]).map_err(|e| e.to_string())?;
            Event::Set(args[0].to_owned(), args[1].to_owned())
        }
        "toggle" => match defaults.get(args[0]).map_err(|e| e.to_string())? {
            settings::SettingValue::Boolean(_) => Event::Toggle(args[0].to_owned()),
            _ => return Err(format!("{} is not a Boolean setting", args[0])),
        },
        "debug" => {
            Event::Debug(debug_view(args[0]).ok_or(format!(
                "{:?}: expected off, tint, bounds, both, transmittance or coverage",
                args[0]
            ))?)
        }
        "override" => Event::Override(args[0].to_owned(), parse_override(args[1])?),
        _ => Event::Select(args[0].to_owned()),
    })
}

/// A key, the pointer, a button or the wheel.
fn input_event(command: &str, args: &[&str]) -> Result<Event, String> {
    Ok(match command {
        "key" | "key_down" | "key_up" => {
            let key = Key::parse(args[0]).ok_or(format!("{:?} is not a key the viewer uses", args[0]))?;
            let down = match command {
                "key_down" => Some(true),
                "key_up" => Some(false),
                _ => None,
            };
            Event::Key(key, down)
        }
        "mouse" => Event::Mouse(number(args[0])?, number(args[1])?),
        "click" => Event::Click(number(args[0])?, number(args[1])?),
        "scroll" => Event::Scroll(number(args[0])?),
        _ => {
            let button = match args[0] {
                "left" => Button::Left,
                "right" => Button::Right,
                other => return Err(format!("{other:?}: expected left or right")),
            };
            Event::Button(button, command == "button_down")
        }
    })
}

/// The window, the panel, the clock and the camera, saving and closing.
fn view_event(command: &str, args: &[&str]) -> Result<Event, String> {
    let on_off = |s: &str| match s {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("{s:?}: expected on or off")),
    };
    Ok(match command {
        "resize" => {
            let size = super::super::render::parse_size(&format!("{}x{}", args[0], args[1]))?;
            Event::Resize(size.0, size.1)
        }
        "panel" => Event::Panel(on_off(args[0])?),
        "follow" => Event::Follow(on_off(args[0])?),
        "time" => Event::Time(number(args[0])?.max(0.0)),
        "minimise" | "minimize" => Event::Minimise,
        "restore" => Event::Restore,
        "pause" => Event::Pause,
        "play" => Event::Play,
        "reset_view" => Event::ResetView,
        "save" => Event::Save,
        _ => Event::Close,
    })
}

/// A finite number.
fn number(text: &str) -> Result<f32, String> {
    text.parse::<f32>().ok().filter(|v| v.is_finite()).ok_or(format!("{text:?} is not a number"))
}

/// The debug view named `text`.
pub fn debug_view(text: &str) -> Option<FogDebugMode> {
    Some(match text {
        "off" => FogDebugMode::Off,
        "tint" => FogDebugMode::Tint,
        "bounds" => FogDebugMode::Bounds,
        "both" => FogDebugMode::TintAndBounds,
        "transmittance" => FogDebugMode::Transmittance,
        "coverage" => FogDebugMode::Coverage,
        _ => return None,
    })
}

/// `auto`, `fog` or `billboards`.
fn parse_override(text: &str) -> Result<Override, String> {
    Override::ALL
        .into_iter()
        .find(|o| o.to_string() == text)
        .ok_or(format!("{text:?}: expected auto, fog or billboards"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_reads_in_frame_order_with_comments_skipped() {
        let script = Script::parse(
            "# start\n5 set RenderVKParticleFogDensity 2.0\n\n0 toggle RenderVKParticleFog # on\n\
             5 override \"chimney smoke\" billboards\n9 resize 1 1\n9 close\n",
        )
        .expect("valid");
        assert_eq!(script.at(0).collect::<Vec<_>>(), [&Event::Toggle("RenderVKParticleFog".into())]);
        assert_eq!(
            script.at(5).collect::<Vec<_>>(),
            [
                &Event::Set("RenderVKParticleFogDensity".into(), "2.0".into()),
                &Event::Override("chimney smoke".into(), Override::Billboards)
            ]
        );
        assert_eq!(script.at(9).collect::<Vec<_>>(), [&Event::Resize(1, 1), &Event::Close]);
        assert_eq!(script.last_frame(), 9);
        assert!(script.closes());
    }

    #[test]
    fn a_malformed_line_is_refused_naming_it() {
        for (text, says) in [
            ("0 pause\nx play\n", "line 2: \"x\" is not a frame number"),
            ("1 set RenderVKParticleFogDensity lots\n", "line 1:"),
            ("1 set NoSuchSetting 1\n", "NoSuchSetting"),
            ("1 toggle RenderVKParticleFogDensity\n", "not a Boolean setting"),
            ("3 resize 0 4\n", "line 1: size"),
            ("3 key F13\n", "not a key"),
            ("3 override 1 maybe\n", "expected auto, fog or billboards"),
            ("3 jump\n", "\"jump\" is not an event"),
            ("3 pause now\n", "pause takes 0 argument(s), not 1"),
            ("3\n", "a frame number with no event"),
            ("3 select \"chimney\n", "line 1: a quote is not closed"),
            ("3 mouse 1 NaN\n", "not a number"),
        ] {
            let e = Script::parse(text).expect_err(text);
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
