//! The integer hash is bit-identical on both paths: a compute kernel runs thousands of inputs
//! through shaders/lib/hash.wgsl and the results are compared exactly with src/cpu/hash.rs.

mod common;
use noisegraph::gpu::assemble::shader_file;
use noisegraph::twin::hash::*;
use wgpu::util::DeviceExt;

const COUNT: u32 = 4096;
const OUTPUTS: usize = 12;

fn cpu_outputs(i: u32) -> [u32; OUTPUTS] {
    let x = i.wrapping_mul(2654435761);
    let c = [
        x as i32,
        (x ^ 0x5bd1e995) as i32,
        i as i32 - 2048,
        -(i as i32),
    ];
    let sh = seed_hash(i);
    let [a, b, c3] = pcg3d([x, i, !x]);
    let [d, e, f, g] = pcg4d([x, i, !x, i.rotate_left(7)]);
    [
        pcg(x),
        hash_2d([c[0], c[1]], sh),
        hash_3d([c[0], c[1], c[2]], sh),
        hash_4d(c, sh),
        a,
        b,
        c3,
        d ^ e,
        f ^ g,
        hash_to_unit(pcg(x)).to_bits(),
        hash_to_signed(pcg(i)).to_bits(),
        wrap_cell(c[2], 7) as u32,
    ]
}

const KERNEL: &str = r#"
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let x = i * 2654435761u;
    let c = vec4<i32>(bitcast<i32>(x), bitcast<i32>(x ^ 0x5bd1e995u), i32(i) - 2048, -i32(i));
    let sh = seed_hash(i);
    let p3 = pcg3d(vec3<u32>(x, i, ~x));
    let p4 = pcg4d(vec4<u32>(x, i, ~x, (i << 7u) | (i >> 25u)));
    let base = i * 12u;
    out[base + 0u] = pcg(x);
    out[base + 1u] = hash_2d(c.xy, sh);
    out[base + 2u] = hash_3d(c.xyz, sh);
    out[base + 3u] = hash_4d(c, sh);
    out[base + 4u] = p3.x;
    out[base + 5u] = p3.y;
    out[base + 6u] = p3.z;
    out[base + 7u] = p4.x ^ p4.y;
    out[base + 8u] = p4.z ^ p4.w;
    out[base + 9u] = bitcast<u32>(hash_to_unit(pcg(x)));
    out[base + 10u] = bitcast<u32>(hash_to_signed(pcg(i)));
    out[base + 11u] = bitcast<u32>(wrap_cell(c.z, 7));
}
"#;

#[test]
fn gpu_and_cpu_hashes_agree_bit_for_bit() {
    let Some(ctx) = common::gpu() else { return };
    let device = ctx.device();
    let source = format!("{}\n{KERNEL}", shader_file("lib/hash.wgsl").unwrap());
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("hash test"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let size = (COUNT as usize * OUTPUTS * 4) as u64;
    let storage = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &vec![0u8; size as usize],
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(COUNT / 64, 1, 1);
    }
    enc.copy_buffer_to_buffer(&storage, 0, &readback, 0, size);
    ctx.queue().submit(Some(enc.finish()));
    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let view = readback.slice(..).get_mapped_range().unwrap();
    let gpu: &[u32] = bytemuck::cast_slice(&view);
    for i in 0..COUNT {
        let cpu = cpu_outputs(i);
        let g = &gpu[i as usize * OUTPUTS..(i as usize + 1) * OUTPUTS];
        assert_eq!(g, &cpu, "input {i}");
    }
}

#[test]
fn hash_outputs_are_spread_out() {
    // Each output bit is set about half the time over consecutive lattice cells.
    let sh = seed_hash(1337);
    let mut ones = [0u32; 32];
    for y in 0..64 {
        for x in 0..64 {
            let h = hash_2d([x, y], sh);
            for (b, count) in ones.iter_mut().enumerate() {
                *count += (h >> b) & 1;
            }
        }
    }
    for (b, &count) in ones.iter().enumerate() {
        assert!((1848..=2248).contains(&count), "bit {b}: {count} of 4096");
    }
    assert_ne!(hash_2d([3, 4], sh), hash_2d([4, 3], sh));
    assert_ne!(hash_2d([3, 4], seed_hash(1)), hash_2d([3, 4], seed_hash(2)));
}

/// Fraction of cells whose `bits`-bit hash field equals the one `shift` cells away.
fn agreement(hash: impl Fn([i32; 3]) -> u32, shift: [i32; 3], n: i32, bits: u32) -> f64 {
    let mask = (1u32 << bits) - 1;
    let mut same = 0u64;
    let mut total = 0u64;
    for z in 0..n.min(16) {
        for y in 0..n {
            for x in 0..n {
                let a = hash([x, y, z]);
                let b = hash([x + shift[0], y + shift[1], z + shift[2]]);
                for field in [a & mask, a >> (32 - bits)]
                    .into_iter()
                    .zip([b & mask, b >> (32 - bits)])
                {
                    same += u64::from(field.0 == field.1);
                    total += 1;
                }
            }
        }
    }
    same as f64 / total as f64
}

#[test]
fn lattice_hashes_show_no_structure_along_short_vectors() {
    // A hash with lattice structure (a sum of per-axis products, a short period) repeats its
    // gradient choices along some short vector: the low 3 bits (gradient selection) and the top
    // 8 bits (values) would agree far more often than chance there.
    let sh = seed_hash(4000000007);
    let h2 = |c: [i32; 3]| hash_2d([c[0], c[1]], sh);
    let h3 = |c: [i32; 3]| hash_3d(c, sh);
    let h4 = |c: [i32; 3]| hash_4d([c[0], c[1], c[2], c[0] - c[1]], sh);
    let mut worst = (0.0f64, [0; 3], "");
    for (name, dims) in [("2d", 2), ("3d", 3), ("4d", 3)] {
        let reach = if dims == 2 { 24 } else { 6 };
        for dz in if dims == 2 { 0..=0 } else { -reach..=reach } {
            for dy in -reach..=reach {
                for dx in 0..=reach {
                    if (dx, dy, dz) <= (0, 0, 0) && dx == 0 && (dy < 0 || (dy == 0 && dz <= 0)) {
                        continue; // each vector once, never the zero vector
                    }
                    let shift = [dx, dy, dz];
                    for bits in [3u32, 8] {
                        let chance = 1.0 / f64::from(1u32 << bits);
                        let a = match name {
                            "2d" => agreement(h2, shift, 48, bits),
                            "3d" => agreement(h3, shift, 24, bits),
                            _ => agreement(h4, shift, 24, bits),
                        };
                        let excess = a - chance;
                        if excess > worst.0 {
                            worst = (excess, shift, name);
                        }
                    }
                }
            }
        }
    }
    // 3 bits: chance 0.125; 4608+ comparisons per vector give a standard error below 0.005.
    assert!(
        worst.0 < 0.03,
        "hash {} repeats along {:?}: agreement {:.3} above chance",
        worst.2,
        worst.1,
        worst.0
    );
}
