//! `embed.carriers`: the particles a viewer simulated itself ([`GpuCarrier`]) written into the
//! carrier pool, in place of `particles.emit` and `particles.update`, so that the brick passes
//! read them as they read simulated particles (see `carriers.comp`). The viewer's carriers travel
//! in a staged buffer, inside the frame's own command buffer.

use ash::vk;

use crate::error::Result;
use crate::gpu_types::{CarrierPush, GpuCarrier};
use crate::particles_gpu::GpuParticles;
use crate::shaders;
use crate::vk::binding::Binding;
use crate::vk::context::Gpu;
use crate::vk::pipeline::{ComputePipeline, Groups};
use crate::vk::recorder::{Access, Recorder};
use crate::vk::resource::{Buffer, BufferDesc, MemoryLocation};

/// The pass name.
pub const NAME: &str = "embed.carriers";
const WORKGROUP: u32 = 64;

/// The pipeline and the staged carriers of the next frame.
pub struct EmbedCarriersPass {
    pipeline: ComputePipeline,
    /// `embed.carriers.in`: the viewer's carriers ([`GpuCarrier`], capacity of the pool).
    carriers: Buffer,
    count: u32,
}

impl EmbedCarriersPass {
    /// Creates the pipeline and room for `capacity` carriers.
    pub fn new(gpu: &Gpu, capacity: u32) -> Result<Self> {
        let size = u64::from(capacity.max(1)) * std::mem::size_of::<GpuCarrier>() as u64;
        Ok(EmbedCarriersPass {
            pipeline: gpu.create_compute_pipeline(
                NAME,
                shaders::PASSES_EMBED_CARRIERS_CARRIERS_COMP,
                std::mem::size_of::<CarrierPush>() as u32,
            )?,
            carriers: gpu.create_buffer(&BufferDesc {
                name: "embed.carriers.in",
                size,
                usage: vk::BufferUsageFlags::STORAGE_BUFFER,
                location: MemoryLocation::Staged,
            })?,
            count: 0,
        })
    }

    /// Takes the carriers the next recorded frame writes (at most the capacity given to
    /// [`EmbedCarriersPass::new`], checked by the caller).
    pub fn set(&mut self, carriers: &[GpuCarrier]) {
        if !carriers.is_empty() {
            self.carriers.write(0, bytemuck::cast_slice(carriers));
        }
        self.count = carriers.len() as u32;
    }

    /// Records the pass: the carriers set last become `pool`'s particles in the alive list its
    /// update would fill, then the pool's end of frame (the counters' readback, the lists
    /// swapped) as after a simulation.
    pub fn record(&self, rec: &mut Recorder<'_>, pool: &mut GpuParticles) {
        let list = 1 - pool.current_list();
        let push = CarrierPush { counts: [self.count, list as u32, 0, 0] };
        let bindings = [
            Binding::Storage(&self.carriers, Access::ComputeRead),
            Binding::Storage(&pool.pool, Access::ComputeWrite),
            Binding::Storage(&pool.alive[list], Access::ComputeWrite),
            Binding::Storage(&pool.counters, Access::ComputeWrite),
        ];
        let groups = Groups::Direct([self.count.div_ceil(WORKGROUP).max(1), 1, 1]);
        rec.compute(NAME, &self.pipeline, &bindings, bytemuck::bytes_of(&push), groups);
        pool.finish_record(rec);
    }
}
