//! Periodic functions of a phase in turns (1 turn = 2 pi). Twin of `shaders/lib/turns.wgsl`:
//! polynomials with explicit range reduction, so both paths run the same operations.
// The constants are spelled as in the WGSL file so both round to the same f32.
#![allow(clippy::excessive_precision)]

use super::grad::NoiseGrad;

/// 2 pi in f32: radians per turn, for derivatives of functions of turns.
pub const TURN_RADIANS: f32 = std::f32::consts::TAU;

const SIN_TURNS_C0: f32 = 6.28318516;
const SIN_TURNS_C1: f32 = -41.34165493;
const SIN_TURNS_C2: f32 = 81.60099807;
const SIN_TURNS_C3: f32 = -76.54965427;
const SIN_TURNS_C4: f32 = 39.5357958;

const ATAN_TURNS_C0: f32 = 0.159154247;
const ATAN_TURNS_C1: f32 = -0.053024064;
const ATAN_TURNS_C2: f32 = 0.0315077317;
const ATAN_TURNS_C3: f32 = -0.021001929;
const ATAN_TURNS_C4: f32 = 0.0125732114;
const ATAN_TURNS_C5: f32 = -0.00526886224;
const ATAN_TURNS_C6: f32 = 0.00105969907;

/// Wave profile: sine.
pub const PROFILE_SINE: u32 = 0;
/// Wave profile: triangle.
pub const PROFILE_TRIANGLE: u32 = 1;
/// Wave profile: sawtooth.
pub const PROFILE_SAWTOOTH: u32 = 2;
/// Wave profile: square.
pub const PROFILE_SQUARE: u32 = 3;

/// sin(2 pi t) for any t.
#[inline(always)]
pub fn sin_turns(t: f32) -> f32 {
    let mut r = t - crate::twin::floor(t + 0.5);
    if r > 0.25 {
        r = 0.5 - r;
    } else if r < -0.25 {
        r = -0.5 - r;
    }
    let s = r * r;
    r * (SIN_TURNS_C0
        + s * (SIN_TURNS_C1 + s * (SIN_TURNS_C2 + s * (SIN_TURNS_C3 + s * SIN_TURNS_C4))))
}

/// cos(2 pi t) for any t.
#[inline(always)]
pub fn cos_turns(t: f32) -> f32 {
    sin_turns(t + 0.25)
}

/// atan2(y, x) / (2 pi): the angle of (x, y) in turns, in [-1/2, 1/2]; 0 at the origin.
#[inline(always)]
pub fn atan2_turns(y: f32, x: f32) -> f32 {
    let ax = x.abs();
    let ay = y.abs();
    let hi = ax.max(ay);
    if hi == 0.0 {
        return 0.0;
    }
    let r = ax.min(ay) / hi;
    let s = r * r;
    let mut a = r
        * (ATAN_TURNS_C0
            + s * (ATAN_TURNS_C1
                + s * (ATAN_TURNS_C2
                    + s * (ATAN_TURNS_C3
                        + s * (ATAN_TURNS_C4 + s * (ATAN_TURNS_C5 + s * ATAN_TURNS_C6))))));
    if ay > ax {
        a = 0.25 - a;
    }
    if x < 0.0 {
        a = 0.5 - a;
    }
    if y < 0.0 {
        a = -a;
    }
    a
}

/// A periodic profile of phase t (turns), with the zeros and peaks of sin(2 pi t); range [-1, 1].
#[inline(always)]
pub fn phase_profile(t: f32, kind: u32) -> f32 {
    if kind == PROFILE_TRIANGLE {
        let u = t - 0.25;
        return 1.0 - 4.0 * (u - crate::twin::floor(u + 0.5)).abs();
    }
    if kind == PROFILE_SAWTOOTH {
        return 2.0 * (t - crate::twin::floor(t)) - 1.0;
    }
    if kind == PROFILE_SQUARE {
        return if t - crate::twin::floor(t) < 0.5 {
            1.0
        } else {
            -1.0
        };
    }
    sin_turns(t)
}

/// d phase_profile(t, kind) / dt per turn, from above (the slope of the piece t enters as it
/// increases): sine 2 pi cos(2 pi t); triangle -4 from a crest down, +4 from a trough up;
/// sawtooth 2 and square 0, their jumps left out.
#[inline(always)]
pub fn phase_profile_slope(t: f32, kind: u32) -> f32 {
    if kind == PROFILE_TRIANGLE {
        let u = t - 0.25;
        return if u - crate::twin::floor(u + 0.5) >= 0.0 {
            -4.0
        } else {
            4.0
        };
    }
    if kind == PROFILE_SAWTOOTH {
        return 2.0;
    }
    if kind == PROFILE_SQUARE {
        return 0.0;
    }
    TURN_RADIANS * cos_turns(t)
}

/// `phase_profile(atan2_turns(z[1], z[0]), kind)` and its gradient, from the gradients of the
/// complex sum's parts: d phase = (re d im - im d re) / (2 pi |z|^2) turns, computed with z
/// scaled by its larger part so that |z|^2 cannot underflow. Where z = 0 (a singular point)
/// the phase is undefined and the gradient is 0.
#[inline(always)]
pub fn phase_profile_grad(z: [f32; 2], d_re: [f32; 3], d_im: [f32; 3], kind: u32) -> NoiseGrad {
    let t = atan2_turns(z[1], z[0]);
    let value = phase_profile(t, kind);
    let hi = z[0].abs().max(z[1].abs());
    if hi == 0.0 {
        return NoiseGrad { value, d: [0.0; 4] };
    }
    let a = [z[0] / hi, z[1] / hi];
    let m = TURN_RADIANS * hi * (a[0] * a[0] + a[1] * a[1]);
    let slope = phase_profile_slope(t, kind);
    let dt = [0, 1, 2].map(|k| slope * ((a[0] * d_im[k] - a[1] * d_re[k]) / m));
    NoiseGrad {
        value,
        d: [dt[0], dt[1], dt[2], 0.0],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomials_match_the_library_functions() {
        for i in -4000..=4000 {
            let t = i as f32 / 1000.0 + 0.000_37;
            let angle = std::f64::consts::TAU * t as f64;
            assert!(
                (sin_turns(t) as f64 - angle.sin()).abs() < 2e-6,
                "sin at {t}"
            );
            assert!(
                (cos_turns(t) as f64 - angle.cos()).abs() < 2e-6,
                "cos at {t}"
            );
            let (y, x) = (angle.sin() as f32 * 3.0, angle.cos() as f32 * 3.0);
            let expect = (y as f64).atan2(x as f64) / std::f64::consts::TAU;
            let got = atan2_turns(y, x) as f64;
            let diff = (got - expect).abs();
            assert!(
                diff.min(1.0 - diff) < 1e-6,
                "atan2 at {t}: {got} vs {expect}"
            );
        }
    }
}
