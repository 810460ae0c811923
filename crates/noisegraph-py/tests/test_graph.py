"""noisegraph.Graph: every way to make one, its JSON, repr, equality, pickling, and the
errors of bad graphs."""

from __future__ import annotations

import copy
import json
import pickle
import re
from pathlib import Path

import pytest

import noisegraph
from conftest import REPO, fbm_graph


def test_a_dict_its_json_and_its_file_give_the_same_graph(tmp_path: Path) -> None:
    spec = fbm_graph()
    from_dict = noisegraph.Graph(spec)
    from_json = noisegraph.Graph.from_json(json.dumps(spec))
    path = tmp_path / "g.json"
    path.write_text(json.dumps(spec))
    assert from_dict == from_json == noisegraph.Graph.load(path)
    assert noisegraph.Graph.from_dict(spec) == from_dict
    assert noisegraph.Graph.load(str(path)) == from_dict
    assert from_dict.seed == 7 and from_dict.output == "fbm"
    assert from_dict.node_ids == [n["id"] for n in spec["nodes"]]
    assert from_dict != noisegraph.Graph(fbm_graph(seed=8))
    assert from_dict != "not a graph"


def test_to_json_round_trips_with_every_parameter_explicit() -> None:
    graph = noisegraph.Graph(fbm_graph())
    text = graph.to_json()
    assert noisegraph.Graph.from_json(text) == graph
    explicit = json.loads(text)
    base = next(n for n in explicit["nodes"] if n["id"] == "base")
    assert base["fade"] == "quintic", "defaults are written out"
    assert graph.to_dict() == explicit
    pretty = graph.to_json(indent=4)
    assert "\n    " in pretty and json.loads(pretty) == explicit


def test_repr_shows_the_graph_and_evaluates_back() -> None:
    graph = noisegraph.Graph(fbm_graph())
    text = repr(graph)
    assert text.startswith("Graph({") and "'perlin'" in text and "'fbm'" in text
    assert eval(text, {"Graph": noisegraph.Graph}) == graph


def test_graphs_pickle_and_copy() -> None:
    graph = noisegraph.Graph(fbm_graph())
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(graph, protocol)) == graph
    assert copy.deepcopy(graph) == graph
    assert type(pickle.loads(pickle.dumps(graph))) is noisegraph.Graph


def test_presets_load_by_name_as_the_tool_lists_them(tool) -> None:
    names = noisegraph.presets()
    listed = tool.run("presets").stdout
    assert list(names) and all(name in listed for name in names)
    for name, description in names.items():
        assert description and description in listed
        assert noisegraph.Graph.preset(name).node_ids
    with pytest.raises(ValueError, match="name: unknown preset 'nope'.*terrain"):
        noisegraph.Graph.preset("nope")


def test_the_builder_mirrors_the_rust_one_and_its_json() -> None:
    b = noisegraph.GraphBuilder(seed=1337)
    b.node("base", "perlin").frequency(4.0)
    b.fractal("terrain", "fbm", "base").octaves(6).gain(0.5).lacunarity(2.0)
    b.node("cells", "cellular", frequency=6).set("return", "f2_minus_f1")
    b.node("shift", "value").frequency((2, 3)).seed_offset(4).offset([0.5, 0.25])
    b.warp("bent", "base", ["shift", "shift"], 0.1)
    b.pointwise("sum", "add", ["terrain", "bent"])
    b.pointwise("flip", "neg", ["sum"])
    b.node("s3", "simplex").dims(3).z(0.5)
    b.node("s4", "simplex").dims(4).w(0.25)
    b.node("tiles", "perlin").frequency(4).period(4)
    graph = b.output("flip").build()
    assert graph.output == "flip"
    assert graph.node_ids == [
        "base", "terrain", "cells", "shift", "bent", "sum", "flip", "s3", "s4", "tiles",
    ]
    assert graph == noisegraph.Graph(b.to_dict())
    spec = b.to_dict()
    assert spec["nodes"][1] == {
        "id": "terrain", "type": "fbm", "source": "base", "octaves": 6, "gain": 0.5,
        "lacunarity": 2.0,
    }
    assert spec["nodes"][3]["frequency"] == [2, 3]
    assert graph.dims("s4") == 4 and graph.dims() == 2


def test_every_problem_is_reported_naming_node_and_field() -> None:
    spec = {
        "seed": 1,
        "output": "missing",
        "nodes": [
            {"id": "a", "type": "perlin", "frequency": -1},
            {"id": "b", "type": "fbm", "source": "a", "octaves": 99},
        ],
    }
    with pytest.raises(noisegraph.GraphError) as info:
        noisegraph.Graph(spec)
    error = info.value
    assert isinstance(error, ValueError)
    problems = {(p.node, p.field) for p in error.problems}
    assert ("a", "frequency") in problems
    assert ("b", "octaves") in problems
    assert any(p.node is None and p.field == "output" for p in error.problems)
    assert len(error.problems) >= 3
    node, field, message = error.problems[0]
    assert message and str(error.problems[0]) in str(error)
    # The problems survive pickling (a Dask worker's error reaches the client whole).
    again = pickle.loads(pickle.dumps(error))
    assert isinstance(again, noisegraph.GraphError) and again.problems == error.problems
    # JSON text and files report the same way.
    with pytest.raises(noisegraph.GraphError) as from_text:
        noisegraph.Graph.from_json(json.dumps(spec))
    assert from_text.value.problems == error.problems
    with pytest.raises(noisegraph.GraphError, match="JSON|json|expected"):
        noisegraph.Graph.from_json("{not json")


def test_bad_arguments_raise_type_errors_naming_them(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="^spec: expected a dict"):
        noisegraph.Graph("[1, 2]")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="spec: the dict is not in the JSON graph format"):
        noisegraph.Graph({"seed": 1, "nodes": [{"id": object()}]})
    with pytest.raises(ValueError, match="spec: "):
        noisegraph.Graph({"seed": 1, "nodes": [{"id": "a", "type": "perlin",
                                                 "frequency": float("nan")}]})
    with pytest.raises(FileNotFoundError, match="missing.json"):
        noisegraph.Graph.load(tmp_path / "missing.json")
    with pytest.raises(TypeError, match="^graph: expected a noisegraph.Graph or a dict"):
        noisegraph.bake("terrain", (4, 4))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="^node: no node 'zzz'"):
        noisegraph.Graph(fbm_graph()).dims("zzz")


def test_the_version_is_the_crates() -> None:
    cargo = (REPO / "Cargo.toml").read_text()
    workspace_version = re.search(r'\[workspace\.package\]\s*version = "([^"]+)"', cargo)
    assert workspace_version, "the workspace declares the version"
    assert noisegraph.__version__ == workspace_version.group(1)
    assert noisegraph.info()["version"] == noisegraph.__version__


def test_the_schema_is_the_engines_and_the_package_reads_kinds_from_it(tool) -> None:
    nodes = noisegraph.schema()["nodes"]
    types = [n["type"] for n in nodes]
    assert types == noisegraph.node_types()
    assert set(noisegraph.node_types("fractal")) <= set(types)
    assert {n["category"] for n in nodes} == {"family", "fractal", "warp", "pointwise", "mapping"}
    # The README's node tables are generated from the same schema: every kind is in it.
    readme = (REPO / "README.md").read_text()
    for name in types:
        assert f"`{name}`" in readme, name
    # Every kind parses: a node of each, given its inputs and required fields.
    for node in nodes:
        spec: dict = {"id": "n", "type": node["type"]}
        for field in node["fields"]:
            if field.get("required"):
                spec[field["name"]] = [0.0, 1.0]
        # A curved mapping's source has the dims its rule names (a 3D or 4D node).
        base = f"base{node['dims']['source']}" if node["dims"]["rule"] == "fixed" else "base"
        for inp in node["inputs"]:
            if inp["count"] == "one":
                spec[inp["name"]] = base
            elif inp["count"] == "per_source_axis":
                spec[inp["name"]] = ["base", "base"]
            else:
                spec[inp["name"]] = ["base"] * inp["count"]["list"]
        graph = noisegraph.Graph({"seed": 1, "output": "n", "nodes": [
            {"id": "base", "type": "perlin"},
            {"id": "base3", "type": "simplex", "dims": 3},
            {"id": "base4", "type": "simplex", "dims": 4}, spec]})
        assert graph.to_dict()["nodes"][3]["type"] == node["type"]
    with pytest.raises(ValueError, match="category: unknown category 'noise'"):
        noisegraph.node_types("noise")


def test_the_builders_setters_and_methods_follow_the_schema() -> None:
    fields = {f["name"] for n in noisegraph.schema()["nodes"] for f in n["fields"]}
    setters = [name for name in vars(noisegraph.NodeBuilder)
               if not name.startswith("_") and name != "set"]
    assert setters and all(name in fields for name in setters), set(setters) - fields
    b = noisegraph.GraphBuilder(seed=3)
    b.node("a", "perlin")
    b.node("t", "value")
    for kind in noisegraph.node_types("fractal"):
        b.fractal(kind, kind, "a").octaves(2)
    with pytest.raises(ValueError, match="kind: 'perlin' is not a fractal node type.*fbm"):
        b.fractal("x", "perlin", "a")
    with pytest.raises(ValueError, match="op: 'perlin' is not a point-wise node type.*add"):
        b.pointwise("x", "perlin", ["a"])
    b.pointwise("m", "mix", ["a", "fbm", "t"])
    b.pointwise("c", "constant", value=0.5)
    b.pointwise("r", "remap", ["m"], **{"from": [-1, 1], "to": [0, 1]})
    spec = b.output("r").to_dict()
    by_id = {n["id"]: n for n in spec["nodes"]}
    assert by_id["m"]["inputs"] == ["a", "fbm", "t"]
    assert by_id["r"]["source"] == "m" and "inputs" not in by_id["r"]
    assert "source" not in by_id["c"] and "inputs" not in by_id["c"]
    assert b.build().node_ids == list(by_id)
