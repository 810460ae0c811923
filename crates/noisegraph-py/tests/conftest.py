"""Shared fixtures: the command-line tool (the reference the package must equal) and small
graphs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import noisegraph

REPO = Path(__file__).resolve().parents[3]


def tool_path() -> Path:
    """The `noisegraph` binary: $NOISEGRAPH_BIN, else the checkout's target/debug build
    (`cargo build` makes it; CI runs `cargo test` first)."""
    path = Path(os.environ.get("NOISEGRAPH_BIN", REPO / "target" / "debug" / "noisegraph"))
    if not path.is_file():
        pytest.fail(
            f"the command-line tool is not at {path}: run `cargo build` (or set NOISEGRAPH_BIN)"
        )
    return path


class Tool:
    """Runs the command-line tool in a scratch folder."""

    def __init__(self, folder: Path) -> None:
        self.path = tool_path()
        self.folder = folder

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(self.path), *args], cwd=self.folder, capture_output=True, text=True
        )
        assert result.returncode == 0, f"noisegraph {' '.join(args)}: {result.stderr}"
        return result

    def graph_file(self, graph: dict[str, Any] | noisegraph.Graph, name: str = "g.json") -> str:
        text = graph.to_json() if isinstance(graph, noisegraph.Graph) else json.dumps(graph)
        path = self.folder / name
        path.write_text(text)
        return str(path)

    def bake(self, graph: Any, *args: str) -> np.ndarray:
        out = self.folder / "bake.npy"
        self.run("bake", self.graph_file(graph), "-o", str(out), "--backend", "cpu", *args)
        return np.load(out)


@pytest.fixture
def tool(tmp_path: Path) -> Tool:
    return Tool(tmp_path)


def fbm_graph(seed: int = 7) -> dict[str, Any]:
    """An 8-octave Perlin fBm over a 2D and a 3D base, a warp and a point-wise node."""
    return {
        "seed": seed,
        "output": "fbm",
        "nodes": [
            {"id": "base", "type": "perlin", "frequency": 4},
            {"id": "fbm", "type": "fbm", "source": "base", "octaves": 8},
            {"id": "base3", "type": "simplex", "dims": 3, "frequency": 3},
            {"id": "fbm3", "type": "fbm", "source": "base3", "octaves": 4},
            {"id": "shift", "type": "value", "frequency": 2, "seed_offset": 5},
            {"id": "warped", "type": "warp", "source": "base", "displace": ["shift", "shift"],
             "amplitude": 0.1},
            {"id": "mixed", "type": "add", "inputs": ["fbm", "warped"]},
            {"id": "cells", "type": "cellular", "frequency": 6},
        ],
    }


@pytest.fixture
def graph() -> noisegraph.Graph:
    return noisegraph.Graph(fbm_graph())
