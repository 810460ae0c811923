// The stage template: coordinates, octave loop, fractal remap, warp, store.
// Twin: src/cpu/stage.rs (run_generate).
//
// One invocation per output pixel. For octave k the host has split the (f64) origin into an
// integer lattice offset `cell` and a small f32 `local`, so the kernel only ever works in
// small local coordinates: a tile at x = 1e6 is as clean as one at 0. The generated prelude
// (src/gpu/assemble.rs) declares the bindings and defines sample_family, load_displace,
// load_partial, octave_local, octave_sum and store_out for this stage's family, pass and
// texture shape.

struct Octave {
    cell: vec4<i32>,
    local: vec4<f32>,
    step: vec4<f32>,
    warp: vec4<f32>,
    period: vec4<i32>,
    seed: u32,
    amp: f32,
    pad0: u32,
    pad1: u32,
}

struct StageParams {
    // width, height, depth, number of octaves in this pass
    size: vec4<u32>,
    // fractal remap, first octave of this pass, finalize flag, unused
    mode: vec4<u32>,
    // pixel offset of this run in the whole view (a tile's position), unused
    pixel_offset: vec4<u32>,
    // x: 1 / sum of |amplitudes|
    scalars: vec4<f32>,
    family: array<vec4<f32>, 4>,
    octaves: array<Octave, 32>,
}

const FRACTAL_RIDGED: u32 = 1u;
const FRACTAL_BILLOW: u32 = 2u;

fn fractal_remap(n: f32, kind: u32) -> f32 {
    if (kind == FRACTAL_RIDGED) {
        let r = 1.0 - abs(n);
        return r * r;
    }
    if (kind == FRACTAL_BILLOW) {
        return 2.0 * abs(n) - 1.0;
    }
    return n;
}

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    // Invocations past the view's edge leave at once (EARLY_EXIT), or, in specialized
    // kernels, compute and skip only the store: on lavapipe everything after an early return
    // runs under control flow, where each uniform load is gathered lane by lane. That is
    // cheaper than the spills of hoisting a generic kernel's many octave loads, but dearer
    // than the few loads a specialized kernel has left (BENCHMARKS.md).
    if (EARLY_EXIT && any(gid >= params.size.xyz)) {
        return;
    }
    let d = load_displace(gid);
    let pix = vec4<f32>(vec3<f32>(gid + params.pixel_offset.xyz), 0.0);
    var sum = octave_sum(pix, d, load_partial(gid));
    if (PASS_FINALIZE) {
        sum *= params.scalars.x;
    }
    if (EARLY_EXIT || all(gid < params.size.xyz)) {
        store_out(gid, sum);
    }
}

// One octave's contribution at pixel position `pix` displaced by `d`. The prelude's
// octave_sum adds the terms of this pass's octaves, unrolled with constant indices.
fn octave_term(o: Octave, pix: vec4<f32>, d: vec4<f32>) -> f32 {
    let local = octave_local(o.local, pix, o.step, d, o.warp);
    let n = sample_family(o.cell, local, o.seed, o.period);
    return o.amp * fractal_remap(n, FRACTAL_KIND);
}
