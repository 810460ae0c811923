// The stage template: coordinates, octave loop, fractal remap, warp, store.
// Twin: src/cpu/stage.rs (run_generate, and run_generate_grad for the gradient form).
//
// One invocation per output pixel. For octave k of a chain on a cubic lattice the host has
// split every pixel's f64 position axis by axis, once per column, row and slice, into an
// integer lattice cell and an f32 offset in [0, 1] (`positions`, laid out by
// src/graph/position.rs: the numbers the CPU rows and point queries use), so the kernel
// samples exactly the CPU path's cell and offset; on a skewed or linear lattice the host has
// split the origin into `cell` and `local`, and the kernel adds pixel x step in f32 (the CPU
// path splits each pixel's f64 position there). Either way the kernel only works in small
// local coordinates: a tile at x = 1e6 is as clean as one at 0. The generated prelude
// (src/gpu/assemble.rs) declares the bindings and defines sample_family, load_displace,
// load_partial, octave_at, octave_sum and store_out for this stage's family, pass and
// texture shape. A stage in gradient form (FieldForm::Gradient) accumulates
// vec4(value, d/dx, d/dy, d/dz) instead of the value: the prelude's octave_sum then adds
// octave_term_grad (below the gradient marker, assembled only into such stages), partial
// sums and outputs are Rgba32Float, and load_displace returns a Displaced.

struct Octave {
    cell: vec4<i32>,
    local: vec4<f32>,
    step: vec4<f32>,
    // the octave's frequency on the view axes x, y, z (d local / d p), 0 on w
    freq: vec4<f32>,
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
    // fractal remap, first octave of this pass, finalize flag, start of the chain's table in
    // `positions`
    mode: vec4<u32>,
    // pixel offset of this run in the whole view (a tile's position), unused
    pixel_offset: vec4<u32>,
    // x: 1 / sum of |amplitudes| (1 for hetero), y: signal_offset, z: derivative_weight
    scalars: vec4<f32>,
    family: array<vec4<f32>, 4>,
    octaves: array<Octave, 32>,
    // the position map of a mapped stage (lib/mapping.wgsl), zero otherwise
    mapping: Mapping,
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
    // f32 and vec4<f32> in value form; Displaced and vec4<f32> in gradient form.
    let d = load_displace(gid);
    // The prelude's view_position is the pixel itself, or in a mapped stage the mapped
    // position (the octaves then step by their frequency from it).
    let pix = view_position(vec4<f32>(vec3<f32>(gid + params.pixel_offset.xyz), 0.0));
    var sum = octave_sum(gid, pix, d, load_partial(gid));
    if (PASS_FINALIZE) {
        sum *= params.scalars.x;
    }
    if (EARLY_EXIT || all(gid < params.size.xyz)) {
        store_out(gid, sum);
    }
}

// An octave's sample position: the lattice cell and the offset from it.
struct OctavePosition {
    cell: vec4<i32>,
    local: vec4<f32>,
}

// Octave k's split of pixel p from a chain's table starting at `base` (per octave: the run's
// columns, rows, slices, then w; each entry the cell's and the offset's bits), on the axes a
// chain of 2, 3 or 4 dims reads (cell and offset 0 on the others, which no family reads).
fn table_at(base: u32, size: vec4<u32>, k: u32) -> u32 {
    return base + k * (size.x + size.y + size.z + 1u);
}

fn table_position2(base: u32, size: vec4<u32>, k: u32, p: vec3<u32>) -> OctavePosition {
    let at = table_at(base, size, k);
    let x = positions[at + p.x];
    let y = positions[at + size.x + p.y];
    return OctavePosition(
        bitcast<vec4<i32>>(vec4<u32>(x.x, y.x, 0u, 0u)),
        bitcast<vec4<f32>>(vec4<u32>(x.y, y.y, 0u, 0u)),
    );
}

fn table_position3(base: u32, size: vec4<u32>, k: u32, p: vec3<u32>) -> OctavePosition {
    let at = table_at(base, size, k);
    let x = positions[at + p.x];
    let y = positions[at + size.x + p.y];
    let z = positions[at + size.x + size.y + p.z];
    return OctavePosition(
        bitcast<vec4<i32>>(vec4<u32>(x.x, y.x, z.x, 0u)),
        bitcast<vec4<f32>>(vec4<u32>(x.y, y.y, z.y, 0u)),
    );
}

fn table_position4(base: u32, size: vec4<u32>, k: u32, p: vec3<u32>) -> OctavePosition {
    let at = table_at(base, size, k);
    let x = positions[at + p.x];
    let y = positions[at + size.x + p.y];
    let z = positions[at + size.x + size.y + p.z];
    let w = positions[at + size.x + size.y + size.z];
    return OctavePosition(
        bitcast<vec4<i32>>(vec4<u32>(x.x, y.x, z.x, w.x)),
        bitcast<vec4<f32>>(vec4<u32>(x.y, y.y, z.y, w.y)),
    );
}

// One octave's contribution at pixel position `pix` displaced by `d`. The prelude's
// octave_sum adds the terms of this pass's octaves, unrolled with constant indices.
fn octave_term(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>, d: vec4<f32>) -> f32 {
    let at = octave_at(o, k, p, pix, d);
    let n = sample_family(at.cell, at.local, o.seed, o.period);
    return o.amp * fractal_remap(n, FRACTAL_KIND);
}

// ---- gradient form
// Octave k samples local = (its table's offset, or o.local + pix * o.step) + d * o.warp, where
// the offset moves with p as pix * o.step does, pix = (p - origin) * size / extent, and
// o.warp = amplitude * frequency, so d local_a / d p_b = o.freq_a (a = b, a view axis) +
// o.warp_a * d d_a / d p_b. The octave's term amp * fractal_remap(n) then has the
// gradient amp * fractal_remap_slope(n) * sum_a dn/dlocal_a * d local_a / d p: the prelude's
// octave_gradient leaves the warp terms out of unwarped stages. A 4D family's w is no view
// axis (freq.w = 0), but a 4D warp's w displacement moves the sample along w, so dn/dw enters
// through the warp term.

// A warp's displacement at a pixel with its Jacobian: `d` is the displacement per axis of the
// source (x, y, z, w; 0 past the warped axes), `dx`, `dy`, `dz` the derivatives of those four
// with respect to p.x, p.y, p.z.
struct Displaced {
    d: vec4<f32>,
    dx: vec4<f32>,
    dy: vec4<f32>,
    dz: vec4<f32>,
}

// One octave's contribution to (value, d/dx, d/dy, d/dz): the value exactly as octave_term
// computes it, the gradient by the chain rule.
fn octave_term_grad(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>, w: Displaced) -> vec4<f32> {
    let at = octave_at(o, k, p, pix, w.d);
    let n = sample_family_grad(at.cell, at.local, o.seed, o.period);
    let slope = o.amp * fractal_remap_slope(n.value, FRACTAL_KIND);
    return vec4<f32>(o.amp * fractal_remap(n.value, FRACTAL_KIND), slope * octave_gradient(n.d, o, w));
}
