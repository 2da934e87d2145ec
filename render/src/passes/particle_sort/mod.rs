//! `particles.sort`: the visible particles ordered far to near along the camera's forward axis
//! before the billboards draw them (as `llvopartgroup.cpp`), by Batcher's bitonic sorting network
//! ("Sorting networks and their applications", 1968) in compute over a power-of-two padded
//! (key, index) array: one key pass, log2(n)(log2(n)+1)/2 compare-exchange passes, one write-back
//! pass (see `sort.comp`). The padded length follows the pool capacity (the live count is only
//! known on the GPU), e.g. 8192 particles: 91 steps.

use ash::vk;
use glam::Vec3;

use crate::error::Result;
use crate::gpu_types::ParticleSortPush;
use crate::passes::particle_sim::cull::VisibleParticles;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// The pass name (its steps are `particles.sort.keys`, `particles.sort.step`,
/// `particles.sort.write`).
pub const NAME: &str = "particles.sort";
/// Threads per workgroup.
const WORKGROUP: u32 = 64;
/// Bytes per (key, index) pair.
const PAIR_BYTES: u64 = 8;
const MODE_KEYS: u32 = 0;
const MODE_STEP: u32 = 1;
const MODE_WRITE: u32 = 2;

/// The sort pipeline and its key buffer.
pub struct ParticleSortPass {
    pipeline: ComputePipeline,
    keys: Buffer,
    padded: u32,
}

impl ParticleSortPass {
    /// Creates the pipeline and `particles.sort.keys` for a pool of `capacity` particles.
    pub fn new(gpu: &Gpu, capacity: u32) -> Result<Self> {
        let push = std::mem::size_of::<ParticleSortPush>() as u32;
        let pipeline = gpu.create_compute_pipeline(NAME, shaders::PASSES_PARTICLE_SORT_SORT_COMP, push)?;
        let padded = capacity.max(2).next_power_of_two();
        let keys = gpu.create_buffer(&BufferDesc {
            name: "particles.sort.keys",
            size: u64::from(padded) * PAIR_BYTES,
            usage: vk::BufferUsageFlags::STORAGE_BUFFER,
            location: MemoryLocation::GpuOnly,
        })?;
        Ok(ParticleSortPass { pipeline, keys, padded })
    }

    /// Records the sort of `particles.visible` (after `particles.cull`) for a camera at `camera`
    /// looking along `forward`.
    pub fn record(
        &self,
        rec: &mut Recorder<'_>,
        particles: &VisibleParticles<'_>,
        camera: Vec3,
        forward: Vec3,
    ) {
        let bindings = [
            Binding::Storage(particles.pool, Access::ComputeRead),
            Binding::Storage(particles.visible, Access::ComputeWrite),
            Binding::Storage(particles.draw_args, Access::ComputeRead),
            Binding::Storage(&self.keys, Access::ComputeWrite),
        ];
        let mut push = ParticleSortPush {
            camera: camera.extend(0.0).to_array(),
            forward: forward.extend(0.0).to_array(),
            params: [MODE_KEYS, 0, 0, self.padded],
        };
        let all = self.padded.div_ceil(WORKGROUP);
        let half = (self.padded / 2).div_ceil(WORKGROUP);
        let run = |rec: &mut Recorder<'_>, what: &str, push: &ParticleSortPush, groups: u32| {
            let name = crate::names::resource(NAME, what);
            rec.compute(
                &name,
                &self.pipeline,
                &bindings,
                bytemuck::bytes_of(push),
                Groups::Direct([groups, 1, 1]),
            );
        };
        run(rec, "keys", &push, all);
        for (j, k) in bitonic_steps(self.padded) {
            push.params = [MODE_STEP, j, k, self.padded];
            run(rec, "step", &push, half);
        }
        push.params = [MODE_WRITE, 0, 0, self.padded];
        run(rec, "write", &push, all);
    }
}

/// The (j, k) compare-exchange steps of a bitonic network over `n` (a power of two) elements.
pub fn bitonic_steps(n: u32) -> Vec<(u32, u32)> {
    let mut steps = Vec::new();
    let mut k = 2;
    while k <= n {
        let mut j = k / 2;
        while j > 0 {
            steps.push((j, k));
            j /= 2;
        }
        k *= 2;
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shader's compare-exchange, on the CPU: one step over every pair.
    fn step(keys: &mut [f32], j: u32, k: u32) {
        for t in 0..keys.len() as u32 / 2 {
            let i = 2 * j * (t / j) + t % j;
            let l = i + j;
            let ascending = i & k == 0;
            let (a, b) = (keys[i as usize], keys[l as usize]);
            if (a > b) == ascending && a != b {
                keys.swap(i as usize, l as usize);
            }
        }
    }

    #[test]
    fn the_network_sorts_every_input() {
        let n = 64u32;
        let steps = bitonic_steps(n);
        assert_eq!(steps.len(), 6 * 7 / 2);
        let mut state = 12345u32;
        for _ in 0..50 {
            let mut keys: Vec<f32> = (0..n)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 20) as f32
                })
                .collect();
            for &(j, k) in &steps {
                step(&mut keys, j, k);
            }
            assert!(keys.windows(2).all(|w| w[0] <= w[1]), "{keys:?}");
        }
    }
}
