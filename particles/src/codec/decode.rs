//! Block -> [`Decoded`]: the viewer's dispatch (`isNullPS`, `unpackBlock`) and field decoders
//! (`llpartdata.cpp` 74-152, 243-397), with every lenient or undefined path turned into a rejection.

use glam::{Vec2, Vec3, Vec4};

use super::fixed::{Fixed, S8_7, U3_5, U8_8};
use super::{
    Decoded, NoSystemReason, RejectReason, BLEND_TAIL_SIZE, BURST_RATE_FLOOR_S, GLOW_TAIL_SIZE,
    LEGACY_BLOCK_SIZE, MAX_BLOCK_SIZE, PART_FIXED_SIZE, SIZE_FIELD_SIZE, SYS_DATA_SIZE,
};
use crate::types::{PartData, PartFlags, PartSysData, SysFlags, Uuid};

/// Decodes one PSYS block. Never panics, never reads past the end of `block`.
///
/// Order of decisions (`isNullPS`, `unpackBlock`): the viewer's null test first (empty, over 98
/// bytes, for 87..=98 bytes a system size above 68, CRC 0); then exactly 86 bytes -> legacy;
/// 1..=85 bytes -> rejected; 87..=98 bytes -> the strict extended decode.
pub fn decode(block: &[u8]) -> Decoded {
    if let Some(reason) = null_reason(block) {
        return Decoded::NoSystem(reason);
    }
    let len = block.len();
    let result = if len == LEGACY_BLOCK_SIZE {
        decode_legacy(block)
    } else if len < LEGACY_BLOCK_SIZE {
        Err(RejectReason::TooShort { len })
    } else {
        decode_extended(block)
    };
    match result {
        Ok(sys) => Decoded::System(sys),
        Err(reason) => Decoded::Rejected(reason),
    }
}

/// The viewer's `isNullPS` where it is deterministic: empty; longer than 98 bytes; for 87..=98
/// bytes a system-size word above 68; a zero CRC (offset 0 for 86 bytes, 4 for 87..=98). Blocks of
/// 1..=85 bytes are left to the rejection (the viewer reads their CRC from offset 0, or from an
/// uninitialised variable below 4 bytes, then decodes them as truncated extended blocks).
fn null_reason(block: &[u8]) -> Option<NoSystemReason> {
    let len = block.len();
    if len == 0 {
        return Some(NoSystemReason::Empty);
    }
    if len > MAX_BLOCK_SIZE {
        return Some(NoSystemReason::TooLong { len });
    }
    if len < LEGACY_BLOCK_SIZE {
        return None;
    }
    let crc_offset = if len > LEGACY_BLOCK_SIZE {
        let size = i32::from_le_bytes(word_at(block, 0)?);
        if size > SYS_DATA_SIZE as i32 {
            return Some(NoSystemReason::UnknownSystemSize { size });
        }
        SIZE_FIELD_SIZE
    } else {
        0
    };
    (u32::from_le_bytes(word_at(block, crc_offset)?) == 0)
        .then_some(NoSystemReason::CrcZero { offset: crc_offset })
}

fn word_at(block: &[u8], offset: usize) -> Option<[u8; 4]> {
    let bytes = block.get(offset..offset.checked_add(4)?)?;
    Some([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// 86 bytes: system data then the fixed particle part. The flags word is kept as sent (stray
/// DATA_GLOW/DATA_BLEND included); glow is 0/0 and blend the default pair whatever it says.
fn decode_legacy(block: &[u8]) -> Result<PartSysData, RejectReason> {
    let mut r = Reader::new(block);
    let mut sys = read_system(&mut r)?;
    sys.part = read_part_fixed(&mut r)?;
    Ok(sys)
}

/// 87..=98 bytes: the size-prefixed layout with its optional tails, checked for consistency.
/// Where the viewer is lenient (particle size below 18, missing tail bytes, bytes after the
/// declared data) this rejects; where the viewer fails, this rejects with the reason.
fn decode_extended(block: &[u8]) -> Result<PartSysData, RejectReason> {
    let mut r = Reader::new(block);
    let sys_size = r.i32("system-data size")?;
    if sys_size != SYS_DATA_SIZE as i32 {
        return Err(RejectReason::SystemSize { size: sys_size });
    }
    let mut sys = read_system(&mut r)?;
    let part_size = r.i32("particle-data size")?;
    let mut remaining = usize::try_from(part_size)
        .ok()
        .and_then(|size| size.checked_sub(PART_FIXED_SIZE))
        .ok_or(RejectReason::ParticleSizeTooSmall { size: part_size })?;
    sys.part = read_part_fixed(&mut r)?;
    let flags = sys.part.flags.0;
    // Each flagged tail claims its bytes from the particle size; none may claim more than is left.
    let mut claim = |tail: &'static str, flag: u32, width: usize| {
        if flags & flag == 0 {
            return Ok(false);
        }
        let missing = RejectReason::MissingTail { tail, flag, flags, size: part_size };
        remaining = remaining.checked_sub(width).ok_or(missing)?;
        Ok::<bool, RejectReason>(true)
    };
    if claim("glow", PartFlags::DATA_GLOW, GLOW_TAIL_SIZE)? {
        sys.part.start_glow = glow(r.u8("start glow")?);
        sys.part.end_glow = glow(r.u8("end glow")?);
    }
    if claim("blend", PartFlags::DATA_BLEND, BLEND_TAIL_SIZE)? {
        sys.part.blend_func_source = r.u8("blend source")?;
        sys.part.blend_func_dest = r.u8("blend destination")?;
    }
    if remaining > 0 {
        return Err(RejectReason::UnknownParticleBytes { size: part_size, extra: remaining, flags });
    }
    let (end, len) = (r.pos, block.len());
    if end < len {
        return Err(RejectReason::TrailingBytes { extra: len - end, end, len });
    }
    Ok(sys)
}

/// The 68 bytes of system data. The particle template is left at its defaults for the caller.
fn read_system(r: &mut Reader<'_>) -> Result<PartSysData, RejectReason> {
    Ok(PartSysData {
        crc: r.u32("CRC")?,
        flags: SysFlags(r.u32("system flags")?),
        pattern: r.u8("pattern")?,
        max_age: r.fixed(U8_8, "source max age")?,
        start_age: r.fixed(U8_8, "start age")?,
        inner_angle: r.fixed(U3_5, "inner angle")?,
        outer_angle: r.fixed(U3_5, "outer angle")?,
        burst_rate: r.fixed(U8_8, "burst rate")?.max(BURST_RATE_FLOOR_S),
        burst_radius: r.fixed(U8_8, "burst radius")?,
        burst_speed_min: r.fixed(U8_8, "burst speed min")?,
        burst_speed_max: r.fixed(U8_8, "burst speed max")?,
        burst_part_count: r.u8("burst part count")?,
        angular_velocity: r.vec3(S8_7, "angular velocity")?,
        part_accel: r.vec3(S8_7, "particle acceleration")?,
        part_image_id: r.uuid("texture")?,
        target_uuid: r.uuid("target")?,
        part: PartData::default(),
    })
}

/// The 18-byte fixed particle part; glow 0/0 and the default blend pair until a tail says otherwise.
fn read_part_fixed(r: &mut Reader<'_>) -> Result<PartData, RejectReason> {
    Ok(PartData {
        flags: PartFlags(r.u32("particle flags")?),
        max_age: r.fixed(U8_8, "particle max age")?,
        start_color: r.color("start colour")?,
        end_color: r.color("end colour")?,
        start_scale: r.vec2(U3_5, "start scale")?,
        end_scale: r.vec2(U3_5, "end scale")?,
        ..PartData::default()
    })
}

/// A colour channel as the viewer computes it (`LLColor4::setVec(LLColor4U)`): times `1/255`.
pub(crate) fn color_channel(byte: u8) -> f32 {
    byte as f32 * (1.0 / 255.0)
}

/// A glow byte as the viewer computes it (`llpartdata.cpp` unpack): divided by 255. Differs from
/// [`color_channel`] in the last bit for 126 of the 256 bytes (counted in `tests/codec_vectors.rs`).
pub(crate) fn glow(byte: u8) -> f32 {
    byte as f32 / 255.0
}

/// A bounds-checked little-endian cursor: every read either succeeds or names what is missing.
struct Reader<'a> {
    block: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(block: &'a [u8]) -> Self {
        Reader { block, pos: 0 }
    }

    fn take<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N], RejectReason> {
        let truncated =
            || RejectReason::Truncated { field, offset: self.pos, width: N, len: self.block.len() };
        let end = self.pos.checked_add(N).ok_or_else(truncated)?;
        let bytes = self.block.get(self.pos..end).ok_or_else(truncated)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        self.pos = end;
        Ok(out)
    }

    fn u8(&mut self, field: &'static str) -> Result<u8, RejectReason> {
        Ok(self.take::<1>(field)?[0])
    }

    fn u32(&mut self, field: &'static str) -> Result<u32, RejectReason> {
        Ok(u32::from_le_bytes(self.take(field)?))
    }

    fn i32(&mut self, field: &'static str) -> Result<i32, RejectReason> {
        Ok(i32::from_le_bytes(self.take(field)?))
    }

    fn fixed(&mut self, format: Fixed, field: &'static str) -> Result<f32, RejectReason> {
        let raw = if format.total_bits() <= 8 {
            u32::from(self.u8(field)?)
        } else {
            u32::from(u16::from_le_bytes(self.take(field)?))
        };
        Ok(format.decode(raw))
    }

    fn vec2(&mut self, format: Fixed, field: &'static str) -> Result<Vec2, RejectReason> {
        Ok(Vec2::new(self.fixed(format, field)?, self.fixed(format, field)?))
    }

    fn vec3(&mut self, format: Fixed, field: &'static str) -> Result<Vec3, RejectReason> {
        let x = self.fixed(format, field)?;
        let y = self.fixed(format, field)?;
        Ok(Vec3::new(x, y, self.fixed(format, field)?))
    }

    fn color(&mut self, field: &'static str) -> Result<Vec4, RejectReason> {
        let [r, g, b, a] = self.take(field)?;
        Ok(Vec4::new(color_channel(r), color_channel(g), color_channel(b), color_channel(a)))
    }

    fn uuid(&mut self, field: &'static str) -> Result<Uuid, RejectReason> {
        Ok(Uuid(self.take(field)?))
    }
}
