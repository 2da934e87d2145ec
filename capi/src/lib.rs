//! The particle fog's C ABI: `include/particle_fog.h` over [`render::embed`], for C and C++
//! viewers (built as `libparticle_fog.a` and `libparticle_fog.so`).
//!
//! Every function checks its pointers, turns errors into a code with a message
//! ([`pf_last_error`]) and runs its body under `catch_unwind`, so no Rust panic crosses into C.
//! The `#[repr(C)]` structs here mirror the header's, field for field; the header test checks that
//! every function declared there is defined here and the other way round.

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use glam::{Mat4, Quat, Vec3};
use render::ash::{self, vk};
use render::embed::{self as embed, FogContext, TextureStats};
use render::RenderError;

/// A call's result: `PF_OK` or an error code.
pub type PfResult = i32;
/// Success.
pub const PF_OK: PfResult = 0;
/// An argument or a viewer resource the fog cannot use.
pub const PF_ERROR_BAD_INPUT: PfResult = 1;
/// A device feature, extension or format is missing.
pub const PF_ERROR_UNSUPPORTED: PfResult = 2;
/// Host or device memory ran out.
pub const PF_ERROR_OUT_OF_MEMORY: PfResult = 3;
/// The device was lost.
pub const PF_ERROR_DEVICE_LOST: PfResult = 4;
/// Any other Vulkan failure.
pub const PF_ERROR_VULKAN: PfResult = 5;
/// A required pointer was null.
pub const PF_ERROR_NULL: PfResult = 6;
/// A bug inside, caught before it reached C.
pub const PF_ERROR_INTERNAL: PfResult = 7;
/// A file could not be written.
pub const PF_ERROR_IO: PfResult = 8;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

fn code_of(e: &RenderError) -> PfResult {
    match e {
        RenderError::BadInput(_) => PF_ERROR_BAD_INPUT,
        RenderError::Unsupported(_) | RenderError::NoDevice(_) | RenderError::LoaderMissing(_) => {
            PF_ERROR_UNSUPPORTED
        }
        RenderError::OutOfMemory(_) => PF_ERROR_OUT_OF_MEMORY,
        RenderError::DeviceLost(_) => PF_ERROR_DEVICE_LOST,
        _ => PF_ERROR_VULKAN,
    }
}

/// Runs `body`, turning its error or panic into a code and a message.
fn guard(body: impl FnOnce() -> Result<(), Failure>) -> PfResult {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => PF_OK,
        Ok(Err(Failure(code, message))) => {
            set_error(&message);
            code
        }
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_error(&format!("internal error in the particle fog: {what}"));
            PF_ERROR_INTERNAL
        }
    }
}

/// An error code and its message.
struct Failure(PfResult, String);

impl From<RenderError> for Failure {
    fn from(e: RenderError) -> Self {
        Failure(code_of(&e), e.to_string())
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure(PF_ERROR_BAD_INPUT, message.into())
}

/// `ptr` as a reference, or a `PF_ERROR_NULL` naming `what`.
///
/// # Safety
/// A non-null `ptr` points to a live, aligned `T` for the lifetime used.
unsafe fn arg<'a, T>(ptr: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure(PF_ERROR_NULL, format!("{what} is NULL")))
}

/// As [`arg`], mutable.
///
/// # Safety
/// As [`arg`], and nothing else refers to `*ptr` meanwhile.
unsafe fn arg_mut<'a, T>(ptr: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_mut() }.ok_or_else(|| Failure(PF_ERROR_NULL, format!("{what} is NULL")))
}

/// `len` items at `ptr` (none when `len` is 0).
///
/// # Safety
/// A non-null `ptr` points to `len` live items.
unsafe fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Failure(PF_ERROR_NULL, format!("{what} is NULL with {len} items")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// `pf_host_device`.
#[repr(C)]
pub struct PfHostDevice {
    /// The loader's (or the layer chain's) `vkGetInstanceProcAddr`.
    pub get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
    /// The viewer's instance.
    pub instance: vk::Instance,
    /// Its physical device.
    pub physical_device: vk::PhysicalDevice,
    /// Its device.
    pub device: vk::Device,
    /// A graphics + compute queue family.
    pub queue_family: u32,
    /// A queue of it.
    pub queue: vk::Queue,
    /// 1 to 3.
    pub frames_in_flight: u32,
    /// The instance has the validation layer.
    pub validation: u32,
    /// The instance has `VK_EXT_debug_utils`.
    pub debug_utils: u32,
}

/// `pf_context_desc`.
#[repr(C)]
pub struct PfContextDesc {
    /// Render size.
    pub width: u32,
    /// Render size.
    pub height: u32,
    /// Largest size.
    pub max_width: u32,
    /// Largest size.
    pub max_height: u32,
    /// The HDR target's format.
    pub hdr_format: vk::Format,
    /// Reversed Z.
    pub reversed_z: u32,
    /// Infinite far plane.
    pub infinite_far: u32,
    /// Systems at once (0: the default).
    pub max_systems: u32,
    /// Carrier particles (0: the default).
    pub particle_capacity: u32,
    /// 1: the viewer hands over its own particles ([`pf_carriers_set`]).
    pub viewer_carriers: u32,
}

/// `pf_carrier`: the same bytes as [`embed::Carrier`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PfCarrier {
    /// Position (m) and age (s).
    pub position_age: [f32; 4],
    /// RGBA.
    pub color: [f32; 4],
    /// Width and height (m).
    pub size: [f32; 2],
    /// Its system's index.
    pub system: u32,
    /// PSYS flags.
    pub flags: u32,
}

const _: () = assert!(
    std::mem::size_of::<PfCarrier>() == std::mem::size_of::<embed::Carrier>()
        && std::mem::offset_of!(PfCarrier, flags) == std::mem::offset_of!(embed::Carrier, flags)
);

/// `pf_system_desc`.
#[repr(C)]
pub struct PfSystemDesc {
    /// The PSYS block.
    pub psys: *const u8,
    /// Its length.
    pub psys_len: usize,
    /// Texture statistics, or null.
    pub texture: *const PfTextureStats,
    /// Worn on an avatar.
    pub attachment: u32,
    /// A HUD attachment.
    pub hud: u32,
    /// Its object's UUID (all zero: keyed by the system's id).
    pub object_id: [u8; 16],
    /// The prim's link number.
    pub link: u32,
}

/// `pf_camera`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PfCamera {
    /// Column-major.
    pub view_from_world: [f32; 16],
    /// Column-major.
    pub clip_from_view: [f32; 16],
    /// Near plane, m.
    pub near_m: f32,
    /// Far plane, m.
    pub far_m: f32,
}

/// `pf_frame_update`.
#[repr(C)]
pub struct PfFrameUpdate {
    /// Time step, s.
    pub dt_s: f32,
    /// The camera.
    pub camera: PfCamera,
    /// Wind, m/s.
    pub wind: [f32; 3],
}

/// `pf_image_state`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PfImageState {
    /// Layout.
    pub layout: vk::ImageLayout,
    /// Stages.
    pub stage: vk::PipelineStageFlags2,
    /// Accesses.
    pub access: vk::AccessFlags2,
}

/// `pf_image`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PfImage {
    /// The image.
    pub image: vk::Image,
    /// A view, or null.
    pub view: vk::ImageView,
    /// Format.
    pub format: vk::Format,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Layers.
    pub layers: u32,
    /// Usages.
    pub usage: vk::ImageUsageFlags,
    /// Entry state.
    pub entry: PfImageState,
    /// Exit state.
    pub exit: PfImageState,
}

/// `pf_shadow_layer`.
#[repr(C)]
pub struct PfShadowLayer {
    /// Column-major.
    pub clip_from_world: [f32; 16],
    /// Orthographic.
    pub ortho: u32,
}

/// `pf_light`.
#[repr(C)]
pub struct PfLight {
    /// `PF_LIGHT_*`.
    pub kind: u32,
    /// Position, m.
    pub position: [f32; 3],
    /// Range, m.
    pub range_m: f32,
    /// Colour.
    pub color: [f32; 3],
    /// Intensity.
    pub intensity: f32,
    /// Direction.
    pub direction: [f32; 3],
    /// Up.
    pub up: [f32; 3],
    /// Spot inner half-angle.
    pub inner_deg: f32,
    /// Spot outer half-angle.
    pub outer_deg: f32,
    /// Projector field of view.
    pub fov_deg: f32,
    /// Projector texture layer.
    pub texture_layer: u32,
    /// First shadow layer, -1 none.
    pub shadow_layer: i32,
}

/// `pf_frame_resources`.
#[repr(C)]
pub struct PfFrameResources {
    /// Depth.
    pub depth: PfImage,
    /// HDR target.
    pub hdr: PfImage,
    /// Toward the sun.
    pub to_sun: [f32; 3],
    /// Sun colour.
    pub sun_color: [f32; 3],
    /// Sun illuminance.
    pub sun_illuminance: f32,
    /// Sky ambient.
    pub ambient_sky: [f32; 3],
    /// Ground ambient.
    pub ambient_ground: [f32; 3],
    /// Shadow maps or null.
    pub shadow_maps: *const PfImage,
    /// Their layers.
    pub shadow_layers: *const PfShadowLayer,
    /// How many.
    pub shadow_layer_count: u32,
    /// Sun cascades.
    pub cascades: u32,
    /// Lights.
    pub lights: *const PfLight,
    /// How many.
    pub light_count: u32,
    /// Projector textures or null.
    pub projectors: *const PfImage,
    /// The viewer's froxel fog or null.
    pub froxels: *const PfFroxelVolume,
}

/// `pf_froxel_volume`.
#[repr(C)]
pub struct PfFroxelVolume {
    /// The integrated 3D image (`layers`: its slices).
    pub image: PfImage,
    /// Where the exponential slices start, m.
    pub near_m: f32,
    /// Where they end, m.
    pub far_m: f32,
    /// Henyey-Greenstein g.
    pub anisotropy: f32,
}

/// `pf_stats`.
#[repr(C)]
#[derive(Default)]
pub struct PfStats {
    /// Systems converted.
    pub systems_converted: u32,
    /// Systems demoted by the budget.
    pub systems_demoted: u32,
    /// Carriers splatted.
    pub carriers: u32,
    /// Bricks in use.
    pub bricks_used: u32,
    /// Bricks the budget holds.
    pub bricks_budget: u32,
    /// Requests without a free brick.
    pub alloc_failures: u32,
    /// Mass the carriers carry, m².
    pub mass_expected_m2: f64,
    /// Mass splatted, m².
    pub mass_splatted_m2: f64,
    /// Brick memory allocated, bytes.
    pub brick_bytes_allocated: u64,
}

/// A context and the settings it renders with.
pub struct PfContext {
    fog: FogContext,
    settings: settings::Settings,
}

/// `pf_texture_stats`: statistics of one texture.
pub struct PfTextureStats(TextureStats);

/// The message of this thread's last failed call.
#[no_mangle]
pub extern "C" fn pf_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Device extensions the particle fog needs.
#[no_mangle]
pub extern "C" fn pf_required_device_extension_count() -> u32 {
    embed::REQUIRED_EXTENSIONS.len() as u32
}

/// The `index`-th device extension the particle fog needs, or null past the last.
#[no_mangle]
pub extern "C" fn pf_required_device_extension(index: u32) -> *const c_char {
    embed::REQUIRED_EXTENSIONS.get(index as usize).map_or(std::ptr::null(), |e| e.as_ptr())
}

/// Sets the features the particle fog needs (others and `pNext` untouched).
///
/// # Safety
/// Each pointer is null or points to a live struct of its type.
#[no_mangle]
pub unsafe extern "C" fn pf_required_features(
    core: *mut vk::PhysicalDeviceFeatures,
    f12: *mut vk::PhysicalDeviceVulkan12Features<'static>,
    f13: *mut vk::PhysicalDeviceVulkan13Features<'static>,
) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        let r = embed::required_features();
        // SAFETY: the caller's contract.
        if let Some(c) = unsafe { core.as_mut() } {
            c.fragment_stores_and_atomics |= r.core.fragment_stores_and_atomics;
            c.independent_blend |= r.core.independent_blend;
            c.draw_indirect_first_instance |= r.core.draw_indirect_first_instance;
            c.shader_storage_image_write_without_format |= r.core.shader_storage_image_write_without_format;
        }
        // SAFETY: the caller's contract.
        if let Some(f) = unsafe { f12.as_mut() } {
            f.host_query_reset |= r.f12.host_query_reset;
        }
        // SAFETY: the caller's contract.
        if let Some(f) = unsafe { f13.as_mut() } {
            f.synchronization2 |= r.f13.synchronization2;
            f.dynamic_rendering |= r.f13.dynamic_rendering;
            f.maintenance4 |= r.f13.maintenance4;
        }
    }));
}

/// Creates a context on the viewer's device.
///
/// # Safety
/// `host` and `desc` point to live structs; the handles in `host` are valid and outlive the
/// context; `out` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_context_create(
    host: *const PfHostDevice,
    desc: *const PfContextDesc,
    out: *mut *mut PfContext,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (host, desc, out) = unsafe { (arg(host, "host")?, arg(desc, "desc")?, arg_mut(out, "out")?) };
        *out = std::ptr::null_mut();
        let gipa = host
            .get_instance_proc_addr
            .ok_or_else(|| Failure(PF_ERROR_NULL, "get_instance_proc_addr is NULL".into()))?;
        if host.instance == vk::Instance::null() || host.device == vk::Device::null() {
            return Err(Failure(PF_ERROR_NULL, "the instance or device is VK_NULL_HANDLE".into()));
        }
        // SAFETY: the function pointer and handles are the viewer's, valid by the contract.
        let (entry, instance, device) = unsafe {
            let entry = ash::Entry::from_static_fn(ash::StaticFn { get_instance_proc_addr: gipa });
            let instance = ash::Instance::load(entry.static_fn(), host.instance);
            let device = ash::Device::load(instance.fp_v1_0(), host.device);
            (entry, instance, device)
        };
        let host_device = embed::HostDevice {
            entry,
            instance,
            physical_device: host.physical_device,
            device,
            queue_family: host.queue_family,
            queue: host.queue,
            frames_in_flight: host.frames_in_flight,
            validation: host.validation != 0,
            debug_utils: host.debug_utils != 0,
        };
        let defaults = embed::FogContextDesc::default();
        let desc = embed::FogContextDesc {
            size: (desc.width, desc.height),
            max_size: (desc.max_width, desc.max_height),
            hdr_format: desc.hdr_format,
            depth: embed::DepthConvention {
                reversed: desc.reversed_z != 0,
                infinite_far: desc.infinite_far != 0,
            },
            max_systems: if desc.max_systems == 0 { defaults.max_systems } else { desc.max_systems },
            particle_capacity: if desc.particle_capacity == 0 {
                defaults.particle_capacity
            } else {
                desc.particle_capacity
            },
            carriers: if desc.viewer_carriers != 0 {
                embed::CarrierSource::Viewer
            } else {
                embed::CarrierSource::Simulated
            },
        };
        // SAFETY: the viewer's contract is FogContext::new's.
        let fog = unsafe { FogContext::new(host_device, &desc) }?;
        *out = Box::into_raw(Box::new(PfContext { fog, settings: settings::Settings::default() }));
        Ok(())
    })
}

/// Destroys a context (null: nothing); `leaked`, when not null, gets the allocations still alive.
///
/// # Safety
/// `ctx` came from [`pf_context_create`] and is not used again; every frame slot completed.
#[no_mangle]
pub unsafe extern "C" fn pf_context_destroy(ctx: *mut PfContext, leaked: *mut u32) -> PfResult {
    guard(|| {
        if ctx.is_null() {
            return Ok(());
        }
        // SAFETY: the caller's contract: the box is ours and used no more.
        let ctx = unsafe { Box::from_raw(ctx) };
        let live = ctx.fog.destroy();
        // SAFETY: the caller's contract.
        if let Some(l) = unsafe { leaked.as_mut() } {
            *l = live.len() as u32;
        }
        if live.is_empty() {
            Ok(())
        } else {
            Err(Failure(PF_ERROR_INTERNAL, format!("allocations alive after destruction: {live:?}")))
        }
    })
}

/// # Safety
/// `ctx` is a live context; `name` and `value` are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn pf_setting_set(
    ctx: *mut PfContext,
    name: *const c_char,
    value: *const c_char,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        // SAFETY: the caller's contract.
        let (name, value) = unsafe { (text(name, "name")?, text(value, "value")?) };
        settings::cli::set_text(&mut ctx.settings, name, value).map_err(|e| bad(e.to_string()))
    })
}

/// # Safety
/// `ptr` is null or a NUL-terminated string.
unsafe fn text<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure(PF_ERROR_NULL, format!("{what} is NULL")));
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(ptr) }.to_str().map_err(|_| bad(format!("{what} is not UTF-8")))
}

/// # Safety
/// `ctx` is a live context.
#[no_mangle]
pub unsafe extern "C" fn pf_resize(ctx: *mut PfContext, width: u32, height: u32) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        Ok(ctx.fog.resize(width, height)?)
    })
}

/// # Safety
/// `rgba8` points to `width * height * 4` bytes; `out` to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_texture_stats_create(
    width: u32,
    height: u32,
    rgba8: *const u8,
    out: *mut *mut PfTextureStats,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { arg_mut(out, "out")? };
        *out = std::ptr::null_mut();
        let len = (u64::from(width) * u64::from(height) * 4) as usize;
        // SAFETY: the caller's contract.
        let texels = unsafe { slice(rgba8, len, "rgba8")? };
        let stats = embed::texture_stats_rgba8(width, height, texels)?;
        *out = Box::into_raw(Box::new(PfTextureStats(stats)));
        Ok(())
    })
}

/// # Safety
/// `stats` came from [`pf_texture_stats_create`] (or is null) and is not used again.
#[no_mangle]
pub unsafe extern "C" fn pf_texture_stats_destroy(stats: *mut PfTextureStats) {
    if !stats.is_null() {
        // SAFETY: the caller's contract.
        drop(unsafe { Box::from_raw(stats) });
    }
}

/// # Safety
/// `ctx` is a live context; `desc` a live struct whose pointers hold what it says.
#[no_mangle]
pub unsafe extern "C" fn pf_system_upsert(
    ctx: *mut PfContext,
    id: u64,
    desc: *const PfSystemDesc,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, desc) = unsafe { (arg_mut(ctx, "ctx")?, arg(desc, "desc")?) };
        // SAFETY: the caller's contract.
        let block = unsafe { slice(desc.psys, desc.psys_len, "psys")? };
        // SAFETY: the caller's contract.
        let texture = unsafe { desc.texture.as_ref() }.map(|t| t.0.clone());
        let object = embed::Uuid(desc.object_id);
        let key = (!object.is_nil()).then_some(embed::SystemKey { object, link: desc.link });
        let system = embed::SystemDesc {
            texture,
            attachment: desc.attachment != 0,
            hud: desc.hud != 0,
            key,
            ..embed::SystemDesc::new(embed::Descriptor::Psys(block))
        };
        Ok(ctx.fog.upsert_system(id, &system)?)
    })
}

/// # Safety
/// `ctx` is a live context.
#[no_mangle]
pub unsafe extern "C" fn pf_system_remove(ctx: *mut PfContext, id: u64) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        Ok(ctx.fog.remove_system(id)?)
    })
}

/// # Safety
/// `ctx` is a live context; `position` points to 3 floats, `rotation` to 4.
#[no_mangle]
pub unsafe extern "C" fn pf_system_set_transform(
    ctx: *mut PfContext,
    id: u64,
    position: *const [f32; 3],
    rotation: *const [f32; 4],
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, p, r) =
            unsafe { (arg_mut(ctx, "ctx")?, arg(position, "position")?, arg(rotation, "rotation")?) };
        Ok(ctx.fog.set_transform(id, Vec3::from_array(*p), Quat::from_array(*r))?)
    })
}

/// # Safety
/// `ctx` is a live context.
#[no_mangle]
pub unsafe extern "C" fn pf_system_set_override(
    ctx: *mut PfContext,
    id: u64,
    override_mode: i32,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        let o = match override_mode {
            0 => embed::Override::Auto,
            1 => embed::Override::Fog,
            2 => embed::Override::Billboards,
            other => return Err(bad(format!("override {other}: PF_OVERRIDE_AUTO, _FOG or _BILLBOARDS"))),
        };
        Ok(ctx.fog.set_override(id, o)?)
    })
}

/// # Safety
/// `ctx` is a live context; `override_mode` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_system_override(
    ctx: *const PfContext,
    id: u64,
    override_mode: *mut i32,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, out) = unsafe { (arg(ctx, "ctx")?, arg_mut(override_mode, "override_mode")?) };
        *out = match ctx.fog.override_of(id)? {
            embed::Override::Auto => 0,
            embed::Override::Fog => 1,
            embed::Override::Billboards => 2,
        };
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pf_overrides_load(ctx: *mut PfContext, path: *const c_char) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, path) = unsafe { (arg_mut(ctx, "ctx")?, text(path, "path")?) };
        let file = embed::OverridesFile::open(path).map_err(|e| bad(e.to_string()))?;
        ctx.fog.load_overrides(&file);
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn pf_overrides_save(ctx: *const PfContext, path: *const c_char) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, path) = unsafe { (arg(ctx, "ctx")?, text(path, "path")?) };
        // The file's other entries (objects not in view, keys it does not know) are kept; an
        // unreadable file is refused and left as it is.
        let mut file = embed::OverridesFile::open(path).map_err(|e| bad(e.to_string()))?;
        ctx.fog.store_overrides(&mut file);
        file.save(settings::SaveMode::Normal).map_err(|e| Failure(PF_ERROR_IO, e.to_string()))
    })
}

/// # Safety
/// `ctx` is a live context; `weight` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_system_weight(ctx: *const PfContext, id: u64, weight: *mut f32) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, out) = unsafe { (arg(ctx, "ctx")?, arg_mut(weight, "weight")?) };
        *out = ctx.fog.weight(id)?;
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `index` a live `u32`.
#[no_mangle]
pub unsafe extern "C" fn pf_system_index(ctx: *const PfContext, id: u64, index: *mut u32) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, out) = unsafe { (arg(ctx, "ctx")?, arg_mut(index, "index")?) };
        *out = ctx.fog.system_index(id)?;
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `carriers` points to `count` carriers (or is anything when `count` is 0).
#[no_mangle]
pub unsafe extern "C" fn pf_carriers_set(
    ctx: *mut PfContext,
    carriers: *const PfCarrier,
    count: u32,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        if count == 0 {
            return Ok(ctx.fog.set_carriers(&[])?);
        }
        if carriers.is_null() {
            return Err(Failure(PF_ERROR_NULL, "carriers is NULL".to_owned()));
        }
        // SAFETY: the caller's contract: `count` carriers, whose bytes are embed::Carrier's.
        let carriers =
            unsafe { std::slice::from_raw_parts(carriers.cast::<embed::Carrier>(), count as usize) };
        Ok(ctx.fog.set_carriers(carriers)?)
    })
}

/// # Safety
/// `ctx` is a live context; `frame` a live struct.
#[no_mangle]
pub unsafe extern "C" fn pf_update(ctx: *mut PfContext, frame: *const PfFrameUpdate) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, f) = unsafe { (arg_mut(ctx, "ctx")?, arg(frame, "frame")?) };
        let c = &f.camera;
        let camera = embed::Camera {
            view_from_world: Mat4::from_cols_array(&c.view_from_world),
            clip_from_view: Mat4::from_cols_array(&c.clip_from_view),
            near_m: c.near_m,
            far_m: c.far_m,
        };
        let update = embed::FrameUpdate {
            dt_s: f.dt_s,
            camera,
            settings: &ctx.settings,
            wind: Vec3::from_array(f.wind),
        };
        Ok(ctx.fog.update(&update)?)
    })
}

fn image(i: &PfImage) -> embed::ViewerImage {
    let state =
        |s: &PfImageState| embed::HostImageState { layout: s.layout, stage: s.stage, access: s.access };
    embed::ViewerImage {
        image: i.image,
        view: i.view,
        format: i.format,
        extent: (i.width, i.height),
        layers: i.layers,
        usage: i.usage,
        entry: state(&i.entry),
        exit: state(&i.exit),
    }
}

fn light(l: &PfLight) -> Result<embed::Light, Failure> {
    let direction = Vec3::from_array(l.direction);
    let kind = match l.kind {
        0 => embed::LightKind::Point,
        1 => embed::LightKind::Spot { direction, inner_deg: l.inner_deg, outer_deg: l.outer_deg },
        2 => embed::LightKind::Projector {
            direction,
            up: Vec3::from_array(l.up),
            fov_deg: l.fov_deg,
            texture_layer: l.texture_layer,
        },
        other => return Err(bad(format!("light kind {other}: PF_LIGHT_POINT, _SPOT or _PROJECTOR"))),
    };
    Ok(embed::Light {
        position: Vec3::from_array(l.position),
        range_m: l.range_m,
        color: Vec3::from_array(l.color),
        intensity: l.intensity,
        kind,
        shadow_layer: u32::try_from(l.shadow_layer).ok(),
    })
}

/// # Safety
/// `ctx` is a live context; `cmd` a command buffer of its device, recording; `res` a live struct
/// whose images are live, in their entry states, and outlive the frame's submission.
#[no_mangle]
pub unsafe extern "C" fn pf_record(
    ctx: *mut PfContext,
    cmd: vk::CommandBuffer,
    slot: u32,
    res: *const PfFrameResources,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, r) = unsafe { (arg_mut(ctx, "ctx")?, arg(res, "res")?) };
        if cmd == vk::CommandBuffer::null() {
            return Err(Failure(PF_ERROR_NULL, "cmd is VK_NULL_HANDLE".into()));
        }
        // SAFETY: the caller's contract.
        let (layers, lights) = unsafe {
            (
                slice(r.shadow_layers, r.shadow_layer_count as usize, "shadow_layers")?,
                slice(r.lights, r.light_count as usize, "lights")?,
            )
        };
        let layers: Vec<embed::ShadowLayer> = layers
            .iter()
            .map(|l| embed::ShadowLayer {
                clip_from_world: Mat4::from_cols_array(&l.clip_from_world),
                ortho: l.ortho != 0,
            })
            .collect();
        let lights = lights.iter().map(light).collect::<Result<Vec<_>, _>>()?;
        // SAFETY: the caller's contract.
        let (shadow_maps, projectors, froxels) =
            unsafe { (r.shadow_maps.as_ref(), r.projectors.as_ref(), r.froxels.as_ref()) };
        let shadows = shadow_maps.map(|img| embed::ShadowMaps {
            image: image(img),
            layers: &layers,
            cascades: r.cascades,
        });
        let frame = embed::FrameResources {
            depth: image(&r.depth),
            hdr: image(&r.hdr),
            sun: embed::Sun {
                to_sun: Vec3::from_array(r.to_sun),
                color: Vec3::from_array(r.sun_color),
                illuminance: r.sun_illuminance,
            },
            ambient: [Vec3::from_array(r.ambient_sky), Vec3::from_array(r.ambient_ground)],
            shadows,
            lights: &lights,
            projectors: projectors.map(image),
            froxels: froxels.map(|f| embed::FroxelVolume {
                image: image(&f.image),
                near_m: f.near_m,
                far_m: f.far_m,
                anisotropy: f.anisotropy,
            }),
        };
        // SAFETY: the caller's contract is FogContext::record's.
        Ok(unsafe { ctx.fog.record(cmd, slot as usize, &frame) }?)
    })
}

/// # Safety
/// `ctx` is a live context.
#[no_mangle]
pub unsafe extern "C" fn pf_frame_completed(ctx: *mut PfContext, slot: u32) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let ctx = unsafe { arg_mut(ctx, "ctx")? };
        Ok(ctx.fog.frame_completed(slot as usize)?)
    })
}

/// # Safety
/// `ctx` is a live context; `out` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_stats_get(ctx: *const PfContext, out: *mut PfStats) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, out) = unsafe { (arg(ctx, "ctx")?, arg_mut(out, "out")?) };
        let s = ctx.fog.stats();
        *out = PfStats {
            systems_converted: s.systems_converted,
            systems_demoted: s.systems_demoted,
            carriers: s.carriers,
            bricks_used: s.bricks_used,
            bricks_budget: s.bricks_budget,
            alloc_failures: s.alloc_failures,
            mass_expected_m2: s.mass_expected_m2,
            mass_splatted_m2: s.mass_splatted_m2,
            brick_bytes_allocated: s.brick_bytes_allocated,
        };
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `image` and `view` point to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_cloud_image(
    ctx: *const PfContext,
    image: *mut vk::Image,
    view: *mut vk::ImageView,
) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, image, view) =
            unsafe { (arg(ctx, "ctx")?, arg_mut(image, "image")?, arg_mut(view, "view")?) };
        (*image, *view) = ctx.fog.cloud_image().unwrap_or_default();
        Ok(())
    })
}

/// # Safety
/// `ctx` is a live context; `count` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn pf_validation_errors(ctx: *const PfContext, count: *mut u32) -> PfResult {
    guard(|| {
        // SAFETY: the caller's contract.
        let (ctx, count) = unsafe { (arg(ctx, "ctx")?, arg_mut(count, "count")?) };
        let errors = ctx.fog.take_validation_errors();
        for e in &errors {
            eprintln!("particle fog: validation error: {e}");
        }
        *count = errors.len() as u32;
        Ok(())
    })
}

/// The GLSL include for the viewer's particle shader.
#[no_mangle]
pub extern "C" fn pf_viewer_glsl() -> *const c_char {
    static GLSL: std::sync::OnceLock<CString> = std::sync::OnceLock::new();
    GLSL.get_or_init(|| CString::new(embed::VIEWER_GLSL).unwrap_or_default()).as_ptr()
}
