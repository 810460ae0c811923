//! The twins' fast `floor` equals `f32::floor` (WGSL's builtin) on every kind of input.

use noisegraph::cpu::floor;

#[test]
fn fast_floor_equals_std_floor() {
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
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
    ];
    for i in -2000..2000 {
        let v = i as f32 / 7.0;
        values.extend([v, v.next_up(), v.next_down()]);
    }
    for _ in 0..200_000 {
        x = noisegraph::cpu::hash::pcg(x);
        values.push(f32::from_bits(x)); // every exponent, NaN and infinities included
    }
    for v in values {
        let (a, b) = (floor(v), v.floor());
        assert!(
            a == b || (a.is_nan() && b.is_nan()),
            "floor({v:e}) = {a:e}, std gives {b:e}"
        );
    }
}
