"""wgsl, presets, parity, analyze, info: the tool's other commands as functions."""

from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

import noisegraph


def test_wgsl_is_the_tools_module(tool, graph) -> None:
    module = noisegraph.wgsl(graph, node="fbm", name="height")
    out = tool.folder / "height.wgsl"
    tool.run("wgsl", tool.graph_file(graph), "-o", str(out), "--name", "height", "--node", "fbm")
    assert module == out.read_text() and module.source == out.read_text()
    assert isinstance(module, str) and type(module.source) is str
    assert module.name == "height" and module.node == "fbm" and module.dims == 2
    assert "fn height(" in module and "fn height_grad(" in module
    assert module.no_gradient is None and module.tables is None
    assert module.table_binding is None
    default = noisegraph.wgsl(graph)
    assert default.node == graph.output and "fn noise(" in default
    again = pickle.loads(pickle.dumps(module))
    assert again == module and again.name == "height"
    classic = {"seed": 1, "output": "s", "nodes": [
        {"id": "s", "type": "simplex", "dims": 3, "falloff": "classic"}]}
    without = noisegraph.wgsl(classic)
    assert without.no_gradient and "fn noise_grad(" not in without and without.dims == 3
    with pytest.raises(ValueError):
        noisegraph.wgsl(graph, name="not an identifier!")


def test_wgsl_tables_come_as_an_array(tool) -> None:
    spec = {"seed": 3, "output": "g", "nodes": [{"id": "g", "type": "gabor", "frequency": 4}]}
    module = noisegraph.wgsl(spec, table_binding=(1, 2))
    out = tool.folder / "g.wgsl"
    tool.run("wgsl", tool.graph_file(spec), "-o", str(out), "--table-binding", "1,2")
    assert module == out.read_text()
    tables = tool.folder / "g.tables.bin"
    if module.tables is None:
        assert not tables.exists()
    else:
        assert module.table_binding == (1, 2)
        assert np.array_equal(module.tables, np.fromfile(tables, dtype="<f4"))


def test_presets_bake_like_the_tools_presets(tool) -> None:
    for name in ["terrain", "cells"]:
        ours = noisegraph.bake(noisegraph.Graph.preset(name), (32, 48), backend="cpu")
        out = tool.folder / f"{name}.npy"
        tool.run("bake", "--preset", name, "-o", str(out), "--size", "48x32", "--backend", "cpu")
        assert np.array_equal(ours, np.load(out))


def test_parity_matches_the_tool(tool, graph) -> None:
    if noisegraph.info()["adapter"] is None:
        with pytest.raises(RuntimeError, match="adapter"):
            noisegraph.parity(graph, (32, 32))
        return
    stages = noisegraph.parity(graph, (32, 32), node="mixed")
    printed = tool.run("parity", tool.graph_file(graph), "--size", "32x32", "--node", "mixed").stdout
    rows = re.findall(r"^(\w+)\s+\S+\s+\S+\s+(\S+)\s+\d+/\d+\s+(?:ok|FAIL)$", printed,
                      flags=re.M)
    assert [s["node"] for s in stages] == [node for node, _ in rows]
    for stage, (_, tolerance) in zip(stages, rows):
        assert stage["passed"] and stage["total"] == 32 * 32
        assert stage["tolerance"] == pytest.approx(float(tolerance), rel=0.05)
        assert stage["max_abs"] <= stage["tolerance"]
        if stage["family"] != "warp" and stage["node"] != "warped":
            assert stage["tolerance"] == pytest.approx(noisegraph.PARITY_TOLERANCE)
    assert len(noisegraph.parity(noisegraph.Graph.preset("terrain"))) >= 1


def parse_report(text: str) -> dict[str, float]:
    values = {}
    for key in ["mean", "std", "min", "max", "skewness", "excess kurtosis", "peak radius"]:
        values[key] = float(re.search(rf"^{key}: (\S+)$", text, flags=re.M).group(1))
    values["anisotropy"] = float(re.search(r"^anisotropy .*: (\S+)$", text, flags=re.M).group(1))
    values["power"] = [
        (int(r), float(p)) for r, p in re.findall(r"^  r=(\d+)\s+(\S+)$", text, flags=re.M)
    ]
    values["histogram"] = [int(c) for c in re.findall(r"^  \[.*\)\s+(\d+)", text, flags=re.M)]
    return values


def test_analyze_reports_what_the_tool_prints(tool, graph) -> None:
    field = noisegraph.bake(graph, (64, 96), backend="cpu")
    np.save(tool.folder / "f.npy", field)
    printed = parse_report(tool.run("analyze", str(tool.folder / "f.npy"), "--bins", "8").stdout)
    report = noisegraph.analyze(field, bins=8)
    assert report["shape"] == (64, 96) and report["samples"] == 64 * 96
    assert f"{report['mean']:.6f}" == f"{printed['mean']:.6f}"
    for key, digits in [("std", 6), ("min", 6), ("max", 6), ("skewness", 4)]:
        assert f"{report[key]:.{digits}f}" == f"{printed[key]:.{digits}f}", key
    assert f"{report['excess_kurtosis']:.4f}" == f"{printed['excess kurtosis']:.4f}"
    assert f"{report['anisotropy']:.4f}" == f"{printed['anisotropy']:.4f}"
    assert report["peak_radius"] == printed["peak radius"]
    assert report["histogram"] == printed["histogram"] and sum(report["histogram"]) == 64 * 96
    assert len(report["bin_edges"]) == 9
    assert report["report_radii"] == [r for r, _ in printed["power"]]
    for r, power in printed["power"]:
        assert f"{report['radial_power'][r]:.6e}" == f"{power:.6e}"
    volume = noisegraph.bake(graph, (3, 16, 16), node="fbm3", backend="cpu")
    assert noisegraph.analyze(volume, slice=2)["shape"] == (3, 16, 16)


@pytest.mark.parametrize(
    "array, kwargs, kind, message",
    [
        (np.zeros((8, 8)), {}, TypeError, "array: dtype must be float32"),
        ([[0.0]], {}, TypeError, "array: expected a numpy.ndarray"),
        (np.zeros(8, np.float32), {}, ValueError, r"array: expected an \(H, W\)"),
        (np.zeros((0, 8), np.float32), {}, ValueError, "array: every side"),
        (np.zeros((8, 16), np.float32)[:, ::2], {}, ValueError, "array: must be C-contiguous"),
        (np.zeros((2, 8, 8), np.float32), {"slice": 2}, ValueError, "slice: 2 is past"),
        (np.zeros((8, 8), np.float32), {"bins": 0}, ValueError, "bins: at least 1"),
    ],
)
def test_analyze_names_bad_arrays(array, kwargs, kind, message) -> None:
    with pytest.raises(kind, match=message):
        noisegraph.analyze(array, **kwargs)


def test_info_says_what_runs() -> None:
    info = noisegraph.info()
    assert info["version"] == noisegraph.__version__
    assert info["threads"] >= 1 and info["threads_setting"] is None
    assert info["vector_width"] in info["vector_widths"]
    assert info["auto_backend"] in ("cpu", "gpu")
    if info["auto_backend"] == "cpu":
        assert info["auto_reason"]
    if info["adapter"] is not None:
        assert set(info["adapter"]) == {"name", "backend", "device_type", "driver"}
