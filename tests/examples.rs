//! The other examples run: the headless bake writes its PNG, and the animation writes one
//! PNG per frame, each the graph sliced at its time.

mod common;

#[allow(dead_code)]
#[path = "../examples/headless_bake.rs"]
mod headless_bake;

#[allow(dead_code)]
#[path = "../examples/animate.rs"]
mod animate;

#[allow(dead_code)]
#[path = "../examples/vertex_displace.rs"]
mod vertex_displace;

#[allow(dead_code)]
#[path = "../examples/flow_field.rs"]
mod flow_field;

use std::path::PathBuf;

fn out_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn headless_bake_writes_a_png() {
    let dir = out_dir("headless_bake");
    std::fs::create_dir_all(&dir).expect("folder");
    let out = dir.join("bake.png");
    headless_bake::bake(&out).expect("bake");
    let png = image::open(&out).expect("a PNG").to_luma8();
    assert_eq!(png.dimensions(), (512, 512));
    let (lo, hi) = png
        .pixels()
        .fold((255u8, 0u8), |(lo, hi), p| (lo.min(p.0[0]), hi.max(p.0[0])));
    assert!(
        hi - lo > 100,
        "the bake shows noise, not a flat image ({lo}..{hi})"
    );
}

#[test]
fn animate_writes_every_frame_at_its_time() {
    let Some(ctx) = common::gpu() else { return };
    let dir = out_dir("animate");
    let frames = animate::animate(&ctx, &dir, 4, [40, 33], 0.1).expect("animate");
    assert_eq!(frames.len(), 4);
    for (i, (path, field)) in frames.iter().enumerate() {
        let png = image::open(path).expect("a PNG");
        assert_eq!((png.width(), png.height()), (40, 33));
        let mut expected = animate::graph();
        for node in &mut expected.nodes {
            if let noisegraph::graph::NodeKind::Family(f) = &mut node.kind {
                f.z += animate::frame_time(i as u32, 0.1);
            }
        }
        let cpu = common::cpu_field(&expected, &noisegraph::View::image(40, 33));
        assert!(
            field.max_abs_diff(&cpu) <= noisegraph::parity::PARITY_TOLERANCE,
            "frame {i}: max diff {:e}",
            field.max_abs_diff(&cpu)
        );
    }
    assert!(
        frames[0].1.max_abs_diff(&frames[3].1) > 1e-2,
        "time moves the field"
    );
}

#[test]
fn vertex_displace_renders_the_heights_the_point_query_gives() {
    if common::gpu().is_none() {
        return;
    }
    let (device, queue) = vertex_displace::open_device().expect("an adapter");
    let graph = vertex_displace::graph();
    let vertices = vertex_displace::probe_vertices();
    let displaced = vertex_displace::run(&device, &queue, &graph, &vertices).expect("render");
    assert_eq!(displaced.probes.len(), vertices.len());
    for p in &displaced.probes {
        assert!(
            (p.rendered - p.point_query).abs() <= noisegraph::parity::PARITY_TOLERANCE,
            "{p:?}"
        );
    }
    // Every pixel is a vertex of the mesh: all of them against the point query.
    let grid = vertex_displace::GRID;
    let positions: Vec<f64> = (0..grid)
        .flat_map(|j| (0..grid).flat_map(move |i| [i, j]))
        .map(|v| v as f64 * vertex_displace::SPACING)
        .collect();
    let cpu = noisegraph::query::PointQuery::new(&graph, None)
        .unwrap()
        .values(&positions)
        .unwrap();
    let worst = displaced
        .rendered
        .iter()
        .zip(&cpu)
        .map(|(r, c)| (r - c).abs())
        .fold(
            0f32,
            |a, d| if d.is_nan() { f32::INFINITY } else { a.max(d) },
        );
    assert!(
        worst <= noisegraph::parity::PARITY_TOLERANCE,
        "worst {worst:e}"
    );
    let (lo, hi) = cpu
        .iter()
        .fold((f32::MAX, f32::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
    assert!(
        hi - lo > 0.3,
        "the mesh is displaced, not flat ({lo}..{hi})"
    );
}

/// The flow-field example's pictures: a slope map with flat and steep parts, and particle
/// trails that cover most of the image (the curl neither gathers nor scatters them) without
/// saturating it.
#[test]
fn flow_field_draws_slopes_and_trails() {
    let cpu = noisegraph::Executor::new(noisegraph::Backend::Cpu).expect("cpu");
    let size = 128;
    let luma =
        |rgb: &[[f32; 3]]| -> Vec<f32> { rgb.iter().map(|p| (p[0] + p[1] + p[2]) / 3.0).collect() };
    let slope = luma(&flow_field::slope_map(&cpu, size).expect("slope"));
    assert_eq!(slope.len(), (size * size) as usize);
    let (lo, hi) = slope
        .iter()
        .fold((1.0f32, 0.0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(hi - lo > 0.5, "slope map spans {lo}..{hi}");
    let flow = luma(&flow_field::flow_map(&cpu, size).expect("flow"));
    let lit = flow.iter().filter(|&&v| v > 0.05).count() as f64 / flow.len() as f64;
    let full = flow.iter().filter(|&&v| v > 0.99).count() as f64 / flow.len() as f64;
    assert!(
        lit > 0.5 && full < 0.05,
        "trails light {lit} of the image, {full} saturated"
    );
    let dir = out_dir("flow_field");
    std::fs::create_dir_all(&dir).expect("folder");
    let path = dir.join("slope.png");
    flow_field::save(
        path.to_str().unwrap(),
        size,
        &flow_field::slope_map(&cpu, size).unwrap(),
    );
    assert_eq!(image::open(&path).expect("a PNG").width(), size);
}
