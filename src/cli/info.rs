//! `noisegraph info`: the adapter in use and the limits that matter to noisegraph.

use super::Failure;
use noisegraph::gpu::adapter_cache::{self, CpuAnswer};
use noisegraph::GpuContext;

pub fn run() -> Result<(), Failure> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
    let widths: Vec<&str> = noisegraph::vector::VectorWidth::supported()
        .into_iter()
        .map(|w| w.name())
        .collect();
    println!(
        "CPU path: {} threads, {} loops (this CPU has {}; {} caps it)",
        rayon::current_num_threads(),
        noisegraph::vector::vector_width(),
        widths.join(", "),
        noisegraph::vector::VECTOR_WIDTH_ENV
    );
    println!("adapters found: {}", adapters.len());
    for a in &adapters {
        let i = a.get_info();
        println!(
            "  - {} ({:?}, {:?}, driver {} {})",
            i.name, i.backend, i.device_type, i.driver, i.driver_info
        );
    }
    // This probe refreshes the answer `bake --backend auto` keeps in the cache folder.
    let auto_answer = match noisegraph::gpu::default_adapter_info() {
        Ok(i) if i.device_type == wgpu::DeviceType::Cpu => Some(CpuAnswer::CpuAdapter(i.name)),
        Ok(_) => None,
        Err(_) => Some(CpuAnswer::NoAdapter),
    };
    adapter_cache::remember(auto_answer.as_ref());
    match GpuContext::new() {
        Ok(ctx) => {
            let info = ctx.adapter_info();
            let l = ctx.limits();
            println!("in use: {}", info.name);
            println!("  backend: {:?}", info.backend);
            println!("  device type: {:?}", info.device_type);
            println!("  driver: {} {}", info.driver, info.driver_info);
            println!("  pipeline cache: {}", ctx.pipeline_cache_state());
            if info.device_type == wgpu::DeviceType::Cpu {
                println!(
                    "  (a CPU adapter: `bake --backend auto` runs the CPU reference path, which is \
                     faster on the same cores; `--backend gpu` runs on this adapter)"
                );
            }
            println!("  max_texture_dimension_2d: {}", l.max_texture_dimension_2d);
            println!("  max_texture_dimension_3d: {}", l.max_texture_dimension_3d);
            println!("  max_buffer_size: {}", l.max_buffer_size);
            println!(
                "  max_storage_buffer_binding_size: {}",
                l.max_storage_buffer_binding_size
            );
            println!(
                "  max_uniform_buffer_binding_size: {}",
                l.max_uniform_buffer_binding_size
            );
            println!(
                "  max_compute_workgroup_size: {} x {} x {}",
                l.max_compute_workgroup_size_x,
                l.max_compute_workgroup_size_y,
                l.max_compute_workgroup_size_z
            );
            println!(
                "  max_compute_invocations_per_workgroup: {}",
                l.max_compute_invocations_per_workgroup
            );
            println!(
                "  max_compute_workgroups_per_dimension: {}",
                l.max_compute_workgroups_per_dimension
            );
            Ok(())
        }
        Err(noisegraph::Error::NoAdapter) => {
            println!("in use: none (no GPU adapter); bakes run on the CPU reference path");
            if noisegraph::gpu::gpu_required() {
                return Err(Failure {
                    code: 1,
                    message: noisegraph::Error::NoAdapter.to_string(),
                });
            }
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
