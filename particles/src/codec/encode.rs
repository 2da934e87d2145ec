//! [`PartSysData`] -> block: what a simulator sends (the layout rule of LL's shared
//! `LLPartSysData::isLegacyCompatible` and `LLPartData::getSize`, as libopenmetaverse writes it).
//!
//! * Layout: legacy (86 bytes) when both glow bytes are 0 and the blend pair is (7, 9); otherwise
//!   extended with only the tails needed (96 or 98 bytes). In the extended layout the particle
//!   flags' DATA_GLOW and DATA_BLEND bits are rewritten to announce exactly the tails written, so
//!   the block is self-consistent whatever the caller's flags said. The legacy layout carries the
//!   flags word as given: the viewer keeps it and ignores those two bits there (`unpackLegacy`),
//!   so a decoded legacy block re-encodes byte for byte.
//! * Fixed point: see [`super::fixed`] (truncation toward zero, clamped to the field maximum).
//! * Colours: `round(255 x)` clamped to 0..=255, as LL's `LLColor4` -> `LLColor4U` (`v4color.cpp`).
//! * Glow: `trunc(255 g)` clamped, as libopenmetaverse and LL's historic float -> U8 conversion.
//! * Burst rate: raw values below 2 are written as 2. The viewer decodes raw 0, 1 and 2 alike as
//!   its 0.01 s floor, so nothing changes on screen, and every block [`encode`] writes comes back
//!   byte for byte from `encode(decode(block))`.
//! * The CRC is written as given; a CRC of 0 makes a block that means "no system".

use glam::{Vec2, Vec3, Vec4};

use super::fixed::{Fixed, S8_7, U3_5, U8_8};
use super::{BLEND_TAIL_SIZE, GLOW_TAIL_SIZE, MAX_BLOCK_SIZE, PART_FIXED_SIZE, SYS_DATA_SIZE};
use crate::types::{PartData, PartFlags, PartSysData};

/// The smallest burst-rate raw value written: the largest one the viewer raises to its floor.
const BURST_RATE_MIN_RAW: u32 = 2;

/// Encodes `sys` as the block a simulator would send (86, 96 or 98 bytes; 94 never, since a
/// block without tails is legacy).
pub fn encode(sys: &PartSysData) -> Vec<u8> {
    let part = &sys.part;
    let glow = [glow_byte(part.start_glow), glow_byte(part.end_glow)];
    let has_glow = glow != [0, 0];
    let has_blend = !part.is_normal_alpha_blend();
    let extended = has_glow || has_blend;
    let flags = if extended {
        let tail_bits = PartFlags::DATA_GLOW | PartFlags::DATA_BLEND;
        let announced = if has_glow { PartFlags::DATA_GLOW } else { 0 }
            | if has_blend { PartFlags::DATA_BLEND } else { 0 };
        part.flags.0 & !tail_bits | announced
    } else {
        part.flags.0
    };

    let mut w = Writer(Vec::with_capacity(MAX_BLOCK_SIZE));
    if extended {
        w.i32(SYS_DATA_SIZE as i32);
    }
    write_system(&mut w, sys);
    if extended {
        let tails = usize::from(has_glow) * GLOW_TAIL_SIZE + usize::from(has_blend) * BLEND_TAIL_SIZE;
        w.i32((PART_FIXED_SIZE + tails) as i32);
    }
    write_part_fixed(&mut w, part, flags);
    if has_glow {
        w.0.extend_from_slice(&glow);
    }
    if has_blend {
        w.0.extend_from_slice(&[part.blend_func_source, part.blend_func_dest]);
    }
    w.0
}

fn write_system(w: &mut Writer, sys: &PartSysData) {
    w.u32(sys.crc);
    w.u32(sys.flags.0);
    w.0.push(sys.pattern);
    w.fixed(U8_8, sys.max_age);
    w.fixed(U8_8, sys.start_age);
    w.fixed(U3_5, sys.inner_angle);
    w.fixed(U3_5, sys.outer_angle);
    w.raw16(U8_8.encode(sys.burst_rate).max(BURST_RATE_MIN_RAW));
    w.fixed(U8_8, sys.burst_radius);
    w.fixed(U8_8, sys.burst_speed_min);
    w.fixed(U8_8, sys.burst_speed_max);
    w.0.push(sys.burst_part_count);
    w.vec3(S8_7, sys.angular_velocity);
    w.vec3(S8_7, sys.part_accel);
    w.0.extend_from_slice(&sys.part_image_id.0);
    w.0.extend_from_slice(&sys.target_uuid.0);
}

fn write_part_fixed(w: &mut Writer, part: &PartData, flags: u32) {
    w.u32(flags);
    w.fixed(U8_8, part.max_age);
    w.color(part.start_color);
    w.color(part.end_color);
    w.vec2(U3_5, part.start_scale);
    w.vec2(U3_5, part.end_scale);
}

/// LL's float -> byte colour channel: `round(255 x)` (half up), clamped; NaN -> 0.
pub(crate) fn color_byte(x: f32) -> u8 {
    // Float -> int `as` saturates at 0..=255 and maps NaN to 0.
    (x * 255.0 + 0.5).floor() as u8
}

/// Glow -> byte: `trunc(255 g)`, clamped; NaN -> 0.
pub(crate) fn glow_byte(g: f32) -> u8 {
    (g * 255.0) as u8
}

/// Little-endian appends.
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    /// A 16-bit raw fixed-point value (already clamped to the field).
    fn raw16(&mut self, raw: u32) {
        self.0.extend_from_slice(&(raw as u16).to_le_bytes());
    }

    fn fixed(&mut self, format: Fixed, value: f32) {
        let raw = format.encode(value);
        if format.total_bits() <= 8 {
            self.0.push(raw as u8);
        } else {
            self.raw16(raw);
        }
    }

    fn vec2(&mut self, format: Fixed, v: Vec2) {
        self.fixed(format, v.x);
        self.fixed(format, v.y);
    }

    fn vec3(&mut self, format: Fixed, v: Vec3) {
        self.fixed(format, v.x);
        self.fixed(format, v.y);
        self.fixed(format, v.z);
    }

    fn color(&mut self, c: Vec4) {
        self.0.extend_from_slice(&c.to_array().map(color_byte));
    }
}
