//! The operations the graph's nodes apply to noise values: the fractal remaps and the
//! point-wise operations, each switched on by its op code. Twin of `shaders/lib/ops.wgsl`.
//! The codes are defined here once and emitted into every assembled WGSL module as named
//! constants ([`wgsl_constants`]), so no kernel spells a bare number.
//!
//! Each operation's value and derivative are written once here (and once in the WGSL): the
//! grid's stages (`engine::stage`, in value and gradient form), point queries
//! (`query::point`) and the exported graph functions all call them. Where an operation has
//! no derivative (a crease) every path takes the same one-sided or mean slope: sign(0) = 0
//! (ridged and billow at n = 0, `abs` at 0: slope 0), `min` / `max` take `a`'s gradient on a
//! tie, `clamp` passes its input's gradient on the closed range [min, max] and 0 outside.

use super::grad::{sign, NoiseGrad};
use super::shaping::{shaping_op, shaping_op_grad, SHAPING_CONSTANTS};

/// Fractal remap: fBm (octaves summed unchanged).
pub const FRACTAL_FBM: u32 = 0;
/// Fractal remap: ridged, (1 - |n|)^2 per octave.
pub const FRACTAL_RIDGED: u32 = 1;
/// Fractal remap: billow, 2|n| - 1 per octave.
pub const FRACTAL_BILLOW: u32 = 2;
/// Fractal remap: ping-pong (FastNoise2's), each octave folded back and forth:
/// `2 pingpong((n + 1) * PINGPONG_STRENGTH) - 1`.
pub const FRACTAL_PINGPONG: u32 = 3;
/// How many times per unit of `n + 1` the ping-pong remap folds: FastNoise2's default
/// ping-pong strength. Twin of the WGSL constant of the same name (shaders/lib/ops.wgsl).
pub const PINGPONG_STRENGTH: f32 = 2.0;
/// Musgrave's hybrid multifractal (`shaders/lib/multifractal.wgsl`); no per-octave remap.
pub const FRACTAL_HYBRID: u32 = 4;
/// Musgrave's heterogeneous terrain (`shaders/lib/multifractal.wgsl`); no per-octave remap.
pub const FRACTAL_HETERO: u32 = 5;

/// Point-wise op: a + b.
pub const OP_ADD: u32 = 0;
/// Point-wise op: a - b.
pub const OP_SUB: u32 = 1;
/// Point-wise op: a * b.
pub const OP_MUL: u32 = 2;
/// Point-wise op: min(a, b).
pub const OP_MIN: u32 = 3;
/// Point-wise op: max(a, b).
pub const OP_MAX: u32 = 4;
/// Point-wise op: a + (b - a) * c.
pub const OP_MIX: u32 = 5;
/// Point-wise op: |a|.
pub const OP_ABS: u32 = 6;
/// Point-wise op: -a.
pub const OP_NEG: u32 = 7;
/// Point-wise op: a clamped to [k.x, k.y].
pub const OP_CLAMP: u32 = 8;
/// Point-wise op: a * k.x + k.y (`remap` and `scale_bias`).
pub const OP_SCALE_BIAS: u32 = 9;
/// Point-wise op: k.x (`constant`). The codes past it are the remaps and blends of
/// [`super::shaping`].
pub const OP_CONSTANT: u32 = 10;

/// Every op code constant with its name, as [`wgsl_constants`] emits them.
pub const OP_CONSTANTS: &[(&str, u32)] = &[
    ("FRACTAL_FBM", FRACTAL_FBM),
    ("FRACTAL_RIDGED", FRACTAL_RIDGED),
    ("FRACTAL_BILLOW", FRACTAL_BILLOW),
    ("FRACTAL_PINGPONG", FRACTAL_PINGPONG),
    ("FRACTAL_HYBRID", FRACTAL_HYBRID),
    ("FRACTAL_HETERO", FRACTAL_HETERO),
    ("OP_ADD", OP_ADD),
    ("OP_SUB", OP_SUB),
    ("OP_MUL", OP_MUL),
    ("OP_MIN", OP_MIN),
    ("OP_MAX", OP_MAX),
    ("OP_MIX", OP_MIX),
    ("OP_ABS", OP_ABS),
    ("OP_NEG", OP_NEG),
    ("OP_CLAMP", OP_CLAMP),
    ("OP_SCALE_BIAS", OP_SCALE_BIAS),
    ("OP_CONSTANT", OP_CONSTANT),
];

/// The op codes as WGSL `const` declarations, one per line (`const OP_ADD: u32 = 0u;`):
/// these and the remaps' and blends' ([`SHAPING_CONSTANTS`]).
pub fn wgsl_constants() -> String {
    let mut s = String::from("// ---- op codes (src/twin/lib/ops.rs, src/twin/lib/shaping.rs)\n");
    for (name, value) in OP_CONSTANTS.iter().chain(SHAPING_CONSTANTS) {
        s.push_str(&format!("const {name}: u32 = {value}u;\n"));
    }
    s
}

/// Per-octave remap: identity (fBm), (1 - |n|)^2 (ridged), 2|n| - 1 (billow), the ping-pong
/// fold (see [`pingpong_fold`]).
#[inline(always)]
pub fn fractal_remap(n: f32, kind: u32) -> f32 {
    if kind == FRACTAL_PINGPONG {
        let t = pingpong_fold(n);
        let r = if t < 1.0 { t } else { 2.0 - t };
        return (r - 0.5) * 2.0;
    }
    if kind == FRACTAL_RIDGED {
        let r = 1.0 - n.abs();
        return r * r;
    }
    if kind == FRACTAL_BILLOW {
        return 2.0 * n.abs() - 1.0;
    }
    n
}

/// A point-wise operation on the input values `a`, `b`, `c` with the node's constants `k`
/// (see `PointwiseOp::code_and_constants`).
#[inline(always)]
pub fn combine_op(op: u32, a: f32, b: f32, c: f32, k: [f32; 4]) -> f32 {
    match op {
        OP_ADD => a + b,
        OP_SUB => a - b,
        OP_MUL => a * b,
        OP_MIN => a.min(b),
        OP_MAX => a.max(b),
        OP_MIX => a + (b - a) * c,
        OP_ABS => a.abs(),
        OP_NEG => -a,
        OP_CLAMP => a.max(k[0]).min(k[1]),
        OP_SCALE_BIAS => a * k[0] + k[1],
        OP_CONSTANT => k[0],
        // The remaps and blends (`shaping.rs`).
        _ => shaping_op(op, a, b, c, k),
    }
}

/// d [`fractal_remap`] / dn: 1 (fBm), -2 (1 - |n|) sign(n) (ridged), 2 sign(n) (billow), with
/// sign(0) = 0 on the crease at n = 0 (the mean of the two one-sided slopes).
#[inline(always)]
pub fn fractal_remap_slope(n: f32, kind: u32) -> f32 {
    if kind == FRACTAL_PINGPONG {
        // Each side of a fold is a line; at a fold the branch the value takes (t < 1 rising,
        // t >= 1 falling).
        let t = pingpong_fold(n);
        return if t < 1.0 {
            2.0 * PINGPONG_STRENGTH
        } else {
            -2.0 * PINGPONG_STRENGTH
        };
    }
    let sign_n = sign(n);
    if kind == FRACTAL_RIDGED {
        return -2.0 * (1.0 - n.abs()) * sign_n;
    }
    if kind == FRACTAL_BILLOW {
        return 2.0 * sign_n;
    }
    1.0
}

/// `(n + 1) * PINGPONG_STRENGTH` wrapped into [0, 2): the ping-pong remap rises where it is
/// below 1 and falls above.
#[inline(always)]
pub fn pingpong_fold(n: f32) -> f32 {
    let t = (n + 1.0) * PINGPONG_STRENGTH;
    t - crate::twin::floor(t * 0.5) * 2.0
}

/// [`combine_op`] with gradients: the value is `combine_op`'s (bit for bit), the gradient the
/// operation's derivative by the chain rule, with the crease conventions of the module docs.
#[inline(always)]
pub fn combine_op_grad(
    op: u32,
    a: NoiseGrad,
    b: NoiseGrad,
    c: NoiseGrad,
    k: [f32; 4],
) -> NoiseGrad {
    if op > OP_CONSTANT {
        return shaping_op_grad(op, a, b, c, k);
    }
    let value = combine_op(op, a.value, b.value, c.value, k);
    let d = match op {
        OP_ADD => each(|i| a.d[i] + b.d[i]),
        OP_SUB => each(|i| a.d[i] - b.d[i]),
        OP_MUL => each(|i| a.d[i] * b.value + b.d[i] * a.value),
        OP_MIN if a.value <= b.value => a.d,
        OP_MAX if a.value >= b.value => a.d,
        OP_MIN | OP_MAX => b.d,
        OP_MIX => each(|i| a.d[i] + (b.d[i] - a.d[i]) * c.value + (b.value - a.value) * c.d[i]),
        OP_ABS => {
            let s = sign(a.value);
            each(|i| a.d[i] * s)
        }
        OP_NEG => each(|i| -a.d[i]),
        OP_CLAMP if a.value >= k[0] && a.value <= k[1] => a.d,
        OP_SCALE_BIAS => each(|i| a.d[i] * k[0]),
        _ => [0.0; 4],
    };
    NoiseGrad { value, d }
}

/// `[f(0), f(1), f(2), f(3)]`, inlined (an array `map` left out of line keeps loops scalar).
#[inline(always)]
fn each(f: impl Fn(usize) -> f32) -> [f32; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// d n / d p of one octave from the family's gradient `nd` with respect to `local`: `nd *
/// freq` on each of the `N` position axes, plus, in a warp, the displacement's Jacobian
/// applied to `nd * warp` (`displaced[a][b]`: the derivative of axis `b`'s displacement along
/// position axis `a`). The chain rule of the grid's generated `octave_gradient` and of the
/// exported `<name>_grad` octave terms; the grid asks for x, y, z (`N` = 3), point queries
/// for every axis of the node.
#[inline(always)]
pub fn octave_gradient<const N: usize>(
    nd: [f32; 4],
    freq: [f32; 4],
    warp: [f32; 4],
    displaced: Option<&[[f32; 4]; N]>,
) -> [f32; N] {
    let mut out = [0.0; N];
    match displaced {
        None => {
            for a in 0..N {
                out[a] = nd[a] * freq[a];
            }
        }
        Some(j) => {
            let s = [
                nd[0] * warp[0],
                nd[1] * warp[1],
                nd[2] * warp[2],
                nd[3] * warp[3],
            ];
            for a in 0..N {
                out[a] = nd[a] * freq[a]
                    + (s[0] * j[a][0] + s[1] * j[a][1] + s[2] * j[a][2] + s[3] * j[a][3]);
            }
        }
    }
    out
}
