//! Moving bytes between the CPU and GPU resources: staged uploads, buffer and image readback (the
//! pictures are written by [`crate::picture`]).

use ash::vk;

use super::context::Gpu;
use super::recorder::{Access, Use};
use super::resource::{Buffer, BufferDesc, Image, MemoryLocation};
use crate::error::{RenderError, Result};

impl Gpu {
    /// Copies `bytes` into `dst` (any memory) through a staging buffer, and waits; no bytes, no
    /// copy (Vulkan has no empty copies).
    pub fn upload(&mut self, dst: &Buffer, bytes: &[u8]) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if bytes.len() as u64 > dst.size {
            crate::error::bug(&format!(
                "upload of {} bytes into {} ({} bytes)",
                bytes.len(),
                dst.name,
                dst.size
            ));
        }
        let mut staging = self.create_buffer(&BufferDesc {
            name: &format!("{}.upload", dst.name),
            size: bytes.len() as u64,
            usage: vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })?;
        staging.write(0, bytes);
        self.submit_untimed(|rec| {
            let uses = [Use::Buffer(&staging, Access::TransferRead), Use::Buffer(dst, Access::TransferWrite)];
            rec.pass("gpu.upload", &uses, |rec| rec.copy_buffer(&staging, dst, bytes.len() as u64));
            Ok(())
        })
    }

    /// Copies tightly packed texels of every mip level (level after level, each layer after layer)
    /// into `dst`, and waits.
    pub fn upload_image(&mut self, dst: &Image, bytes: &[u8]) -> Result<()> {
        let texel = texel_bytes(dst.format)
            .ok_or_else(|| RenderError::Unsupported(format!("upload to {:?} ({})", dst.format, dst.name)))?;
        let expected = image_bytes(dst, texel);
        if bytes.len() as u64 != expected {
            crate::error::bug(&format!(
                "upload of {} bytes into {} (needs {expected})",
                bytes.len(),
                dst.name
            ));
        }
        let mut staging = self.create_buffer(&BufferDesc {
            name: &format!("{}.upload", dst.name),
            size: expected,
            usage: vk::BufferUsageFlags::TRANSFER_SRC,
            location: MemoryLocation::CpuToGpu,
        })?;
        staging.write(0, bytes);
        self.submit_untimed(|rec| {
            let uses = [Use::Buffer(&staging, Access::TransferRead), Use::Image(dst, Access::TransferWrite)];
            rec.pass("gpu.upload", &uses, |rec| rec.copy_buffer_to_image(&staging, dst, texel));
            Ok(())
        })
    }

    /// Reads the whole of `src` back to the CPU, and waits.
    pub fn read_buffer(&mut self, src: &Buffer) -> Result<Vec<u8>> {
        let staging = self.readback_buffer(&src.name, src.size)?;
        self.submit_untimed(|rec| {
            let uses = [Use::Buffer(src, Access::TransferRead), Use::Buffer(&staging, Access::TransferWrite)];
            rec.pass("gpu.readback", &uses, |rec| rec.copy_buffer(src, &staging, src.size));
            rec.barriers(&[Use::Buffer(&staging, Access::HostRead)]);
            Ok(())
        })?;
        Ok(staging.read())
    }

    /// Reads layer 0 of a 2D image (or all slices of a 3D image) back, tightly packed, and waits.
    pub fn read_image(&mut self, src: &Image) -> Result<Vec<u8>> {
        let texel = texel_bytes(src.format).ok_or_else(|| {
            RenderError::Unsupported(format!("readback of {:?} ({})", src.format, src.name))
        })?;
        let e = src.extent;
        let size = u64::from(e.width) * u64::from(e.height) * u64::from(e.depth) * texel;
        let staging = self.readback_buffer(&src.name, size)?;
        self.submit_untimed(|rec| {
            rec.pass(
                "gpu.readback",
                &[Use::Image(src, Access::TransferRead), Use::Buffer(&staging, Access::TransferWrite)],
                |rec| {
                    let region = vk::BufferImageCopy::default()
                        .image_subresource(
                            vk::ImageSubresourceLayers::default().aspect_mask(src.aspect()).layer_count(1),
                        )
                        .image_extent(e);
                    // SAFETY: the image is in TRANSFER_SRC_OPTIMAL (declared above); the buffer holds
                    // every texel of layer 0.
                    unsafe {
                        rec.device().cmd_copy_image_to_buffer(
                            rec.cmd,
                            src.raw,
                            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                            staging.raw,
                            &[region],
                        )
                    };
                },
            );
            rec.barriers(&[Use::Buffer(&staging, Access::HostRead)]);
            Ok(())
        })?;
        Ok(staging.read())
    }

    fn readback_buffer(&self, of: &str, size: u64) -> Result<Buffer> {
        self.create_buffer(&BufferDesc {
            name: &format!("{of}.readback"),
            size,
            usage: vk::BufferUsageFlags::TRANSFER_DST,
            location: MemoryLocation::GpuToCpu,
        })
    }
}

/// Bytes per texel of the formats the renderer reads back.
pub fn texel_bytes(format: vk::Format) -> Option<u64> {
    Some(match format {
        vk::Format::R8G8B8A8_UNORM | vk::Format::R8G8B8A8_SRGB | vk::Format::B8G8R8A8_UNORM => 4,
        vk::Format::R32_UINT | vk::Format::R32_SFLOAT | vk::Format::D32_SFLOAT => 4,
        vk::Format::R16_SFLOAT | vk::Format::D16_UNORM => 2,
        vk::Format::R16G16B16A16_SFLOAT => 8,
        vk::Format::R32G32B32A32_SFLOAT => 16,
        vk::Format::B10G11R11_UFLOAT_PACK32 => 4,
        _ => return None,
    })
}

/// Bytes of every mip level and layer of `image`, tightly packed, at `texel` bytes a texel.
pub fn image_bytes(image: &Image, texel: u64) -> u64 {
    (0..image.mips).map(|level| image.level_bytes(level, texel)).sum()
}
