"""bake and bake_tile: the tool's numbers bit for bit, numpy's conventions, out=, tiles
equal to slices, and the errors of bad arguments."""

from __future__ import annotations

import numpy as np
import pytest

import noisegraph
from conftest import fbm_graph

# Above the bindings' band size (2^20 samples), so the banded path and its seams run.
BANDED = (1100, 1000)


def assert_bits_equal(a: np.ndarray, b: np.ndarray) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype == np.float32
    assert np.array_equal(a.view(np.uint32), b.view(np.uint32))


@pytest.mark.parametrize("node", ["fbm", "warped", "mixed", "cells", "fbm3"])
def test_bake_equals_the_tools_npy_bit_for_bit(tool, graph, node) -> None:
    ours = noisegraph.bake(graph, (48, 80), node=node, backend="cpu")
    theirs = tool.bake(graph, "--size", "80x48", "--node", node)
    assert_bits_equal(ours, theirs)
    assert ours.flags.c_contiguous


def test_origin_and_extent_are_in_numpy_order(tool, graph) -> None:
    ours = noisegraph.bake(graph, (40, 64), origin=(-2.5, 1e6), extent=(0.5, 3.0), backend="cpu")
    theirs = tool.bake(graph, "--size", "64x40", "--origin", "1000000,-2.5", "--extent", "3,0.5")
    assert_bits_equal(ours, theirs)
    # An image's origin may give its slice position through 3D nodes as a leading z.
    sliced = noisegraph.bake(graph, (24, 32), node="fbm3", origin=(0.75, 0.0, 0.0), backend="cpu")
    theirs = tool.bake(graph, "--size", "32x24", "--node", "fbm3", "--origin", "0,0,0.75")
    assert_bits_equal(sliced, theirs)
    assert not np.array_equal(sliced, noisegraph.bake(graph, (24, 32), node="fbm3", backend="cpu"))
    # One extent number is every axis.
    assert_bits_equal(
        noisegraph.bake(graph, (16, 16), extent=2.0, backend="cpu"),
        noisegraph.bake(graph, (16, 16), extent=(2.0, 2.0), backend="cpu"),
    )


def test_volumes_are_d_h_w(tool, graph) -> None:
    ours = noisegraph.bake(graph, (5, 12, 16), node="fbm3", origin=(0.5, 1.0, 2.0),
                           extent=(0.25, 0.5, 1.0), backend="cpu")
    theirs = tool.bake(graph, "--size", "16x12x5", "--node", "fbm3", "--origin", "2,1,0.5",
                       "--extent", "1,0.5,0.25")
    assert ours.shape == (5, 12, 16)
    assert_bits_equal(ours, theirs)


@pytest.mark.parametrize("output", ["gradient", "curl"])
def test_gradient_and_curl_are_the_tools_channels(tool, graph, output) -> None:
    image = noisegraph.bake(graph, (20, 24), output=output, backend="cpu")
    assert image.shape == (20, 24, 3 if output == "gradient" else 2)
    assert_bits_equal(image, tool.bake(graph, "--size", "24x20", "--output", output))
    volume = noisegraph.bake(graph, (4, 10, 12), node="fbm3", output=output, backend="cpu")
    assert volume.shape == (4, 10, 12, 4 if output == "gradient" else 3)
    assert_bits_equal(
        volume, tool.bake(graph, "--size", "12x10x4", "--node", "fbm3", "--output", output)
    )
    if output == "gradient":
        assert_bits_equal(image[..., 0], noisegraph.bake(graph, (20, 24), backend="cpu"))


def test_a_banded_bake_equals_the_tool(tool, graph) -> None:
    ours = noisegraph.bake(graph, BANDED, backend="cpu")
    assert_bits_equal(ours, tool.bake(graph, "--size", "1000x1100"))


def test_a_plain_dict_bakes_like_its_graph(graph) -> None:
    assert_bits_equal(
        noisegraph.bake(fbm_graph(), (16, 20), backend="cpu"),
        noisegraph.bake(graph, (16, 20), backend="cpu"),
    )


def test_out_is_filled_and_returned(graph) -> None:
    expected = noisegraph.bake(graph, (30, 40), backend="cpu")
    out = np.full((30, 40), np.nan, dtype=np.float32)
    result = noisegraph.bake(graph, (30, 40), out=out, backend="cpu")
    assert result is out
    assert_bits_equal(out, expected)
    big = np.empty(BANDED, dtype=np.float32)
    assert noisegraph.bake(graph, BANDED, out=big, backend="cpu") is big
    assert_bits_equal(big, noisegraph.bake(graph, BANDED, backend="cpu"))
    grad = np.empty((30, 40, 3), dtype=np.float32)
    noisegraph.bake(graph, (30, 40), output="gradient", out=grad, backend="cpu")
    assert_bits_equal(grad[..., 0], expected)


def test_out_must_fit_exactly(graph) -> None:
    cases = [
        ([0.0] * 4, TypeError, "out: expected a numpy.ndarray"),
        (np.empty((4, 4), np.float64), TypeError, "out: dtype must be float32"),
        (np.empty((4, 4), ">f4"), TypeError, "out: dtype must be float32"),
        (np.empty((4, 5), np.float32), ValueError, r"out: shape must be \(4, 4\)"),
        (np.empty((4, 4, 1), np.float32), ValueError, "out: shape"),
        (np.empty((4, 8), np.float32)[:, ::2], ValueError, "out: must be C-contiguous"),
        (np.asfortranarray(np.empty((4, 4), np.float32)), ValueError, "out: must be C-contiguous"),
    ]
    for out, kind, message in cases:
        with pytest.raises(kind, match=message):
            noisegraph.bake(graph, (4, 4), out=out, backend="cpu")
    frozen = np.empty((4, 4), np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="out: "):
        noisegraph.bake(graph, (4, 4), out=frozen, backend="cpu")


@pytest.mark.parametrize(
    "shape, offset, tile",
    [
        ((96, 128), (17, 33), (40, 50)),
        ((96, 128), (0, 0), (96, 128)),
        ((96, 128), (95, 127), (1, 1)),
        (BANDED, (300, 100), (700, 900)),
    ],
)
def test_a_tile_is_the_slice_of_the_whole_bake(graph, shape, offset, tile) -> None:
    whole = noisegraph.bake(graph, shape, origin=(0.3, -7.0), extent=(1.5, 2.0), backend="cpu")
    part = noisegraph.bake_tile(graph, shape, offset, tile, origin=(0.3, -7.0), extent=(1.5, 2.0),
                                backend="cpu")
    (y0, x0), (h, w) = offset, tile
    assert_bits_equal(part, np.ascontiguousarray(whole[y0:y0 + h, x0:x0 + w]))


@pytest.mark.parametrize("output", ["value", "gradient", "curl"])
def test_volume_tiles_are_slices_in_every_output(graph, output) -> None:
    shape = (6, 14, 20)
    whole = noisegraph.bake(graph, shape, node="fbm3", output=output, backend="cpu")
    for offset, tile in [((0, 0, 0), (6, 14, 20)), ((3, 2, 5), (1, 9, 11)), ((1, 5, 0), (4, 4, 20))]:
        part = noisegraph.bake_tile(graph, shape, offset, tile, node="fbm3", output=output,
                                    backend="cpu")
        (z0, y0, x0), (d, h, w) = offset, tile
        assert_bits_equal(part, np.ascontiguousarray(whole[z0:z0 + d, y0:y0 + h, x0:x0 + w]))


def test_image_tiles_of_gradients_and_curls_are_slices(graph) -> None:
    for output in ["gradient", "curl"]:
        whole = noisegraph.bake(graph, (40, 50), node="warped", output=output, backend="cpu")
        part = noisegraph.bake_tile(graph, (40, 50), (7, 11), (20, 30), node="warped",
                                    output=output, backend="cpu")
        assert_bits_equal(part, np.ascontiguousarray(whole[7:27, 11:41]))
        out = np.empty((20, 30, whole.shape[2]), np.float32)
        assert noisegraph.bake_tile(graph, (40, 50), (7, 11), (20, 30), node="warped",
                                    output=output, out=out, backend="cpu") is out
        assert_bits_equal(out, part)


def test_threads_do_not_change_the_numbers(graph) -> None:
    reference = noisegraph.bake(graph, (300, 200), backend="cpu")
    for threads in [1, 2, 3]:
        assert_bits_equal(noisegraph.bake(graph, (300, 200), threads=threads, backend="cpu"),
                          reference)
    noisegraph.set_threads(1)
    try:
        assert noisegraph.get_threads() == 1
        assert noisegraph.info()["threads"] == 1
        assert_bits_equal(noisegraph.bake(graph, (300, 200), backend="cpu"), reference)
    finally:
        noisegraph.set_threads(None)
    assert noisegraph.get_threads() is None


def test_auto_and_gpu_backends_agree_with_the_cpu_within_parity(graph) -> None:
    cpu = noisegraph.bake(graph, (64, 64), backend="cpu")
    auto = noisegraph.bake(graph, (64, 64))
    assert np.abs(auto - cpu).max() <= noisegraph.PARITY_TOLERANCE
    if noisegraph.info()["adapter"] is not None:
        gpu = noisegraph.bake(graph, (64, 64), backend="gpu")
        assert np.abs(gpu - cpu).max() <= noisegraph.PARITY_TOLERANCE
        tile = noisegraph.bake_tile(graph, (64, 64), (10, 20), (30, 40), backend="gpu")
        assert np.abs(tile - cpu[10:40, 20:60]).max() <= noisegraph.PARITY_TOLERANCE


@pytest.mark.parametrize(
    "kwargs, kind, message",
    [
        (dict(shape=(0, 4)), ValueError, "shape: every side must be from 1"),
        (dict(shape=(4,)), ValueError, r"shape: expected \(H, W\)"),
        (dict(shape=(2, 2, 2, 2)), ValueError, "shape: expected"),
        (dict(shape=(noisegraph.MAX_SIDE + 1, 4)), ValueError, "shape: every side"),
        (dict(shape=(4.5, 4)), TypeError, "shape: expected a tuple of whole numbers"),
        (dict(shape="4x4"), TypeError, "shape: "),
        (dict(origin=(float("nan"), 0)), ValueError, "origin: y is not finite"),
        (dict(origin=(0, float("inf"))), ValueError, "origin: x is not finite"),
        (dict(origin=(0, 2.0**41)), ValueError, "origin: x = .* outside"),
        (dict(origin=(1, 2, 3, 4)), ValueError, "origin: expected"),
        (dict(origin=1.0), TypeError, "origin: expected a tuple"),
        (dict(extent=(0, 1)), ValueError, "extent: y must be greater than 0"),
        (dict(extent=-1.0), ValueError, "extent: "),
        (dict(output="height"), ValueError, "output: unknown output 'height'"),
        (dict(backend="tpu"), ValueError, "backend: unknown backend 'tpu'"),
        (dict(node="nope"), ValueError, "node: no node 'nope'"),
        (dict(threads=0), ValueError, "threads: must be None or a whole number"),
        (dict(threads=10**6), ValueError, "threads: "),
        (dict(threads=1.5), TypeError, "threads"),
        (dict(node=3), TypeError, "node"),
    ],
)
def test_bad_arguments_are_named(graph, kwargs, kind, message) -> None:
    shape = kwargs.pop("shape", (4, 4))
    with pytest.raises(kind, match=message):
        noisegraph.bake(graph, shape, backend=kwargs.pop("backend", "cpu"), **kwargs)


def test_bad_tiles_are_named(graph) -> None:
    with pytest.raises(ValueError, match="offset: the tile at offset"):
        noisegraph.bake_tile(graph, (10, 10), (5, 5), (6, 5), backend="cpu")
    with pytest.raises(ValueError, match="offset: the tile"):
        noisegraph.bake_tile(graph, (10, 10), (-1, 0), (2, 2), backend="cpu")
    with pytest.raises(ValueError, match="offset: a"):
        noisegraph.bake_tile(graph, (10, 10), (0, 0, 0), (2, 2), backend="cpu")
    with pytest.raises(ValueError, match="tile_shape: "):
        noisegraph.bake_tile(graph, (10, 10), (0, 0), (0, 2), backend="cpu")


def test_gradients_of_nodes_without_one_are_refused_by_name() -> None:
    spec = {"seed": 1, "output": "v", "nodes": [
        {"id": "s", "type": "simplex", "dims": 3, "falloff": "classic"},
        {"id": "v", "type": "fbm", "source": "s", "octaves": 2}]}
    for output in ["gradient", "curl"]:
        with pytest.raises(ValueError, match="'s'"):
            noisegraph.bake(spec, (8, 8), output=output, backend="cpu")
    with pytest.raises(ValueError, match="node 'v': simplex with falloff 'classic'"):
        noisegraph.sample(spec, np.zeros((3, 3)), gradient=True, backend="cpu")


def test_sizes_over_memory_are_errors_not_crashes(graph) -> None:
    side = noisegraph.MAX_SIDE
    with pytest.raises(ValueError, match="memory|allocate|limit"):
        noisegraph.bake(graph, (side, side), backend="cpu")


def test_pixel_coordinates_are_the_bakes_positions(graph) -> None:
    y, x = noisegraph.pixel_coordinates((4, 8), origin=(1.0, -2.0), extent=(2.0, 4.0))
    assert np.array_equal(y, 1.0 + np.arange(4) * 0.5)
    assert np.array_equal(x, -2.0 + np.arange(8) * 0.5)
    z, y, x = noisegraph.pixel_coordinates((2, 3, 4))
    assert len(z) == 2 and len(y) == 3 and len(x) == 4
    # Sampling at a pixel's position gives that pixel's value within the tool's contract.
    field = noisegraph.bake(graph, (4, 8), origin=(1.0, -2.0), extent=(2.0, 4.0), backend="cpu")
    yy, xx = np.meshgrid(*noisegraph.pixel_coordinates((4, 8), origin=(1.0, -2.0),
                                                       extent=(2.0, 4.0)), indexing="ij")
    points = np.stack([xx.ravel(), yy.ravel()], axis=1)
    values = noisegraph.sample(graph, points, backend="cpu")
    assert np.abs(values - field.ravel()).max() < 2.5e-4


@pytest.mark.parametrize("size, max_side", [
    ((4096, 1000, 1), None), ((3000, 777, 1), 1024), ((64, 64, 300), None),
    ((2048, 700, 3), None), ((5, 3, 1), None), ((1, 1, 1), None), ((3000, 2, 1), 1000),
])
def test_bands_cover_every_pixel_once_and_stay_small(size, max_side) -> None:
    """The bands a bake runs in, between its signal checks (bake.rs)."""
    w, h, d = size
    seen = np.zeros((d, h, w), np.uint8)
    bands = noisegraph._native._bands_for_tests(size, max_side)
    for (x0, y0, z0), (bw, bh, bd) in bands:
        seen[z0:z0 + bd, y0:y0 + bh, x0:x0 + bw] += 1
        assert bw * bh * bd <= max(noisegraph._native._BAND_SAMPLES, w)
        assert bw <= (max_side or w) and bh <= (max_side or h)
    assert (seen == 1).all()
    if w * h * d <= noisegraph._native._BAND_SAMPLES and max_side is None:
        assert len(bands) == 1, "a small bake is one band: the engine's buffer is the array"


def test_the_result_is_the_engines_buffer_not_a_copy(graph) -> None:
    for shape in [(64, 64), BANDED]:
        result = noisegraph.bake(graph, shape, backend="cpu")
        # Owned by the Rust buffer it was baked into (no numpy array below it to copy from).
        assert not isinstance(result.base, np.ndarray) and result.base is not None
        assert result.flags.c_contiguous and result.flags.writeable and result.flags.aligned
