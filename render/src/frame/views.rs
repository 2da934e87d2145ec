//! The debug views that are images rather than drawing (`RenderVKParticleFogDebug` 4 and 5), read
//! back from the last rendered frame on request; nothing is recorded for them, so they cost
//! nothing in frames that do not ask.
//!
//! - Transmittance of the particle fog from the camera to the opaque depth: `exp(-z)` of the
//!   march's `fog.brick_march.cloud` image (z: optical depth of this frame's march, not
//!   temporally accumulated); 1 where there is no particle fog or no march ran.
//! - Coverage of every particle system: `1 - T_fog x A`, where `A` is the HDR target's alpha after
//!   `particles.billboards`. The opaque pass (and the particles-only clear) writes alpha 1 and
//!   `fog.apply` / `fog.brick_march` keep it, and every billboard pipeline blends alpha with
//!   (ZERO, ONE_MINUS_SRC_ALPHA), so `A = prod(1 - alpha)` over the billboards drawn at the pixel
//!   (alpha as drawn: soft fade, cross-fade weight and the cloud in front included). The two
//!   multiply because a billboard's alpha already excludes the fog in front of it. HUD
//!   particles, drawn over the tone-mapped frame, are not part of it.

use super::HostRenderer;
use crate::error::Result;
use crate::vk::context::Gpu;
use crate::vk::conv::f16_to_f32;

impl HostRenderer {
    /// The particle fog's transmittance camera -> opaque depth per pixel of the last frame
    /// (row-major; 1 without particle fog).
    pub fn read_fog_transmittance(&self, gpu: &mut Gpu) -> Result<Vec<f32>> {
        let extent = self.targets.hdr.extent;
        let Some(cloud) = self.fog.cloud() else {
            return Ok(vec![1.0; (extent.width * extent.height) as usize]);
        };
        let bytes = gpu.read_image(cloud)?;
        let halves: &[u16] = bytemuck::cast_slice(&bytes);
        Ok(halves.chunks_exact(4).map(|c| (-f16_to_f32(c[2]).max(0.0)).exp()).collect())
    }

    /// 1 - the transmittance of every particle system (billboards and particle fog) from the
    /// camera to the opaque depth, per pixel of the last frame (row-major).
    pub fn read_particle_coverage(&self, gpu: &mut Gpu) -> Result<Vec<f32>> {
        let fog = self.read_fog_transmittance(gpu)?;
        let hdr = self.read_hdr(gpu)?;
        Ok(fog.iter().zip(&hdr).map(|(t, px)| 1.0 - t * px[3].clamp(0.0, 1.0)).collect())
    }
}
