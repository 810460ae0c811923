//! The twins' fast `floor` and `to_i32` equal `f32::floor` (WGSL's builtin) and `as i32` on
//! every kind of input, also inside the vectorized loops (AVX-512, AVX2, baseline: every width
//! this CPU has) the row samplers compile them into.

use noisegraph::twin::{floor, to_i32, vectorized};
use noisegraph::vector::{with_vector_width, VectorWidth};

/// Edge cases, a sweep around small multiples of 1/7, and 200 000 random bit patterns (every
/// exponent, NaN and the infinities included).
fn values() -> Vec<f32> {
    let mut x: u32 = 0x9e37_79b9;
    let mut values = vec![
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.0,
        -1.0,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        -8_388_609.0,
        2_147_483_520.0,
        -2_147_483_520.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        -2_147_483_904.0,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ];
    for i in -2000..2000 {
        let v = i as f32 / 7.0;
        values.extend([v, v.next_up(), v.next_down()]);
    }
    for _ in 0..200_000 {
        x = noisegraph::twin::hash::pcg(x);
        values.push(f32::from_bits(x));
    }
    values
}

fn check(v: f32, floored: f32, int: i32, how: &str) {
    let b = v.floor();
    assert!(
        floored == b || (floored.is_nan() && b.is_nan()),
        "{how} floor({v:e}) = {floored:e}, std gives {b:e}"
    );
    assert_eq!(int, v as i32, "{how} to_i32({v:e})");
}

#[test]
fn fast_floor_and_to_i32_equal_std() {
    for v in values() {
        check(v, floor(v), to_i32(v), "scalar");
    }
}

#[test]
fn vectorized_loops_give_the_same_numbers() {
    let values = values();
    for width in VectorWidth::supported() {
        let mut floored = vec![0f32; values.len()];
        let mut ints = vec![0i32; values.len()];
        with_vector_width(width, || {
            vectorized(
                #[inline(always)]
                || {
                    for ((v, f), i) in values.iter().zip(floored.iter_mut()).zip(ints.iter_mut()) {
                        *f = floor(*v);
                        *i = to_i32(*v);
                    }
                },
            )
        });
        for ((&v, &f), &i) in values.iter().zip(&floored).zip(&ints) {
            check(v, f, i, &format!("vectorized ({width})"));
        }
    }
}
