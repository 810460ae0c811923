"""sample: the tool's `noisegraph sample` numbers, its array conventions and errors."""

from __future__ import annotations

import numpy as np
import pytest

import noisegraph


def tool_sample(tool, graph, points: np.ndarray, *args: str) -> np.ndarray:
    np.save(tool.folder / "points.npy", points)
    out = tool.folder / "values.npy"
    tool.run("sample", tool.graph_file(graph), "--points", str(tool.folder / "points.npy"),
             "-o", str(out), "--backend", "cpu", *args)
    return np.load(out)


@pytest.mark.parametrize("node, dims", [("fbm", 2), ("warped", 2), ("fbm3", 3), ("cells", 2)])
def test_sample_equals_the_tool(tool, graph, node, dims) -> None:
    rng = np.random.default_rng(5)
    points = rng.uniform(-50, 50, size=(3000, dims))
    ours = noisegraph.sample(graph, points, node=node, backend="cpu")
    assert ours.shape == (3000,) and ours.dtype == np.float32
    assert np.array_equal(ours, tool_sample(tool, graph, points, "--node", node))
    grads = noisegraph.sample(graph, points, node=node, gradient=True, backend="cpu")
    assert grads.shape == (3000, 1 + dims)
    assert np.array_equal(grads, tool_sample(tool, graph, points, "--node", node, "--gradient"))
    assert np.array_equal(grads[:, 0], ours)


def test_float32_points_and_sequences(tool, graph) -> None:
    points32 = np.array([[0.1, 0.2], [3.5, -4.25], [1e6, 2e6]], dtype=np.float32)
    ours = noisegraph.sample(graph, points32, backend="cpu")
    assert np.array_equal(ours, tool_sample(tool, graph, points32))
    assert np.array_equal(ours, noisegraph.sample(graph, points32.astype(np.float64), backend="cpu"))
    assert np.array_equal(ours, noisegraph.sample(graph, points32.tolist(), backend="cpu"))
    assert noisegraph.sample(graph, np.zeros((0, 2)), backend="cpu").shape == (0,)


def test_auto_backend_matches_the_cpu(graph) -> None:
    points = np.random.default_rng(1).uniform(0, 4, size=(500, 2))
    cpu = noisegraph.sample(graph, points, backend="cpu")
    assert np.abs(noisegraph.sample(graph, points) - cpu).max() <= noisegraph.PARITY_TOLERANCE
    assert np.array_equal(noisegraph.sample(graph, points, backend="cpu", threads=1), cpu)


@pytest.mark.parametrize(
    "points, kind, message",
    [
        (np.zeros((4, 3)), ValueError, r"points: the node takes 2D points: shape \(N, 2\) \(got \(4, 3\)\)"),
        (np.zeros(8), ValueError, r"points: .*\(got \(8,\)\)"),
        (np.zeros((4, 2), dtype=np.int64), TypeError, "points: dtype must be float64 or float32"),
        (np.zeros((4, 2), dtype=np.float16), TypeError, "points: dtype"),
        (np.zeros((2, 8))[:, ::4], ValueError, "points: must be C-contiguous"),
        (np.array([[0.0, np.nan]]), ValueError, "points: point 0 has a non-finite coordinate"),
        (np.array([[0.0, 1.0], [np.inf, 0.0]]), ValueError, "points: point 1 has a non-finite"),
        (np.array([[0.0, 2.0**41]]), ValueError, r"points: point 0 has a coordinate outside"),
        ("0,0", TypeError, "points: expected an"),
        ([[0.0, "x"]], TypeError, "points: expected an"),
    ],
)
def test_bad_points_are_named(graph, points, kind, message) -> None:
    with pytest.raises(kind, match=message):
        noisegraph.sample(graph, points, backend="cpu")


def test_other_bad_arguments_are_named(graph) -> None:
    with pytest.raises(ValueError, match="node: no node 'x'"):
        noisegraph.sample(graph, np.zeros((1, 2)), node="x")
    with pytest.raises(ValueError, match="backend: "):
        noisegraph.sample(graph, np.zeros((1, 2)), backend="quantum")
