//! The renderer example really renders: its render pipeline samples the engine's texture
//! 1:1 (the render target equals the field read back, bit for bit) and its lit image is a
//! real picture of that field.

mod common;

#[allow(dead_code)]
#[path = "../examples/renderer.rs"]
mod renderer;

#[test]
fn render_pipeline_samples_exactly_the_engine_field() {
    let Some(_) = common::gpu() else { return };
    let (device, queue) = renderer::open_device().expect("an adapter exists");
    let graph = renderer::terrain_graph();
    // A size that is no multiple of the workgroup, a non-zero time.
    let frame =
        renderer::render(&device, &queue, &graph, [131, 77], [262, 154], 0.35).expect("render");
    assert_eq!(frame.sampled.data.len(), 131 * 77);
    assert!(
        frame.sampled.data == frame.field.data,
        "render target differs from the field: max diff {:e}",
        frame.sampled.max_abs_diff(&frame.field)
    );
    // And the field is the graph's, sliced at the time (the z of the 3D noise).
    let mut expected = graph.clone();
    for node in &mut expected.nodes {
        if let noisegraph::graph::NodeKind::Family(f) = &mut node.kind {
            f.z += 0.35;
        }
    }
    let cpu = common::cpu_field(&expected, &noisegraph::View::image(131, 77));
    assert!(frame.field.max_abs_diff(&cpu) <= noisegraph::parity::PARITY_TOLERANCE);
}

#[test]
fn lit_image_is_written_and_shows_the_terrain() {
    let Some(_) = common::gpu() else { return };
    let (device, queue) = renderer::open_device().expect("an adapter exists");
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("renderer.png");
    let frame = renderer::run(&device, &queue, &out).expect("render");
    let png = image::open(&out).expect("a PNG").to_rgba8();
    assert_eq!(png.dimensions(), (512, 512));
    assert_eq!(png, frame.lit);
    // Lit, not flat: brightness varies, and lit pixels follow the field (the lit image is
    // twice the field's size, so pixel (2x, 2y) shows texel (x, y)).
    let luminance = |p: &image::Rgba<u8>| p.0[0] as f32 + p.0[1] as f32 + p.0[2] as f32;
    let values: Vec<f32> = png.pixels().map(luminance).collect();
    let mean = values.iter().sum::<f32>() / values.len() as f32;
    let spread = values.iter().map(|v| (v - mean).abs()).sum::<f32>() / values.len() as f32;
    assert!(
        spread > 10.0,
        "the lit image is nearly flat (mean deviation {spread})"
    );
    let water = (0..256u32)
        .flat_map(|y| (0..256u32).map(move |x| (x, y)))
        .filter(|&(x, y)| frame.field.get(x, y, 0) < -0.2)
        .take(50)
        .collect::<Vec<_>>();
    for (x, y) in water {
        let p = png.get_pixel(2 * x, 2 * y).0;
        assert!(
            p[2] > p[0] && p[2] > p[1],
            "deep water at ({x}, {y}) is blue: {p:?}"
        );
    }
}
