"""noisegraph.dask and noisegraph.xarray: chunks are bake_tile calls, .compute() equals
bake() bit for bit, on worker processes too, and to_zarr streams without gathering."""

from __future__ import annotations

import pickle
from pathlib import Path

import dask
import dask.array as da
import distributed
import numpy as np
import pytest
import xarray as xr
import zarr

import noisegraph
import noisegraph.dask
import noisegraph.xarray
from conftest import fbm_graph


def test_compute_equals_bake_bit_for_bit(graph) -> None:
    shape = (150, 230)
    lazy = noisegraph.dask.bake(graph, shape, (64, 100), origin=(1.5, -3.0), extent=(2.0, 3.0),
                                backend="cpu")
    assert isinstance(lazy, da.Array)
    assert lazy.shape == shape and lazy.dtype == np.float32
    assert lazy.chunks == ((64, 64, 22), (100, 100, 30))
    expected = noisegraph.bake(graph, shape, origin=(1.5, -3.0), extent=(2.0, 3.0), backend="cpu")
    with dask.config.set(scheduler="threads"):
        assert np.array_equal(lazy.compute(), expected)
    # A window of the lazy array bakes only its chunks, and equals the slice.
    assert np.array_equal(lazy[70:90, 10:200].compute(scheduler="sync"), expected[70:90, 10:200])


@pytest.mark.parametrize("output, channels", [("value", ()), ("gradient", (4,)), ("curl", (3,))])
def test_volumes_and_channels(graph, output, channels) -> None:
    shape = (5, 20, 24)
    lazy = noisegraph.dask.bake(graph, shape, (2, 7, 24), node="fbm3", output=output, backend="cpu")
    assert lazy.shape == shape + channels
    expected = noisegraph.bake(graph, shape, node="fbm3", output=output, backend="cpu")
    assert np.array_equal(lazy.compute(scheduler="sync"), expected)


def test_arguments_are_checked_when_the_array_is_made(graph) -> None:
    with pytest.raises(noisegraph.GraphError):
        noisegraph.dask.bake({"seed": 1, "nodes": []}, (8, 8), 4)
    with pytest.raises(ValueError, match="node: no node 'nope'"):
        noisegraph.dask.bake(graph, (8, 8), 4, node="nope")
    with pytest.raises(ValueError, match="backend: "):
        noisegraph.dask.bake(graph, (8, 8), 4, backend="tpu")
    with pytest.raises(ValueError, match="shape: "):
        noisegraph.dask.bake(graph, (0, 8), 4)


def test_the_task_graph_pickles_and_names_are_deterministic(graph) -> None:
    a = noisegraph.dask.bake(graph, (64, 64), 32, backend="cpu")
    b = noisegraph.dask.bake(graph, (64, 64), 32, backend="cpu")
    c = noisegraph.dask.bake(graph, (64, 64), 32, backend="cpu", origin=(1.0, 0.0))
    assert a.name == b.name != c.name
    again = pickle.loads(pickle.dumps(a))
    assert np.array_equal(again.compute(scheduler="sync"), a.compute(scheduler="sync"))


def test_worker_processes_bake_into_zarr_without_gathering(tmp_path: Path) -> None:
    graph = noisegraph.Graph(fbm_graph(seed=11))
    shape, chunks = (512, 768), (128, 256)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        lazy = noisegraph.dask.bake(graph, shape, chunks, backend="cpu", threads=1)
        store = tmp_path / "bake.zarr"
        with distributed.get_task_stream(client) as stream:
            lazy.to_zarr(str(store))
        assert len({task["worker"] for task in stream.data}) == 2, "both workers baked"
        expected = noisegraph.bake(graph, shape, backend="cpu")
        stored = zarr.open_array(str(store), mode="r")
        assert stored.shape == shape and stored.chunks == chunks
        assert np.array_equal(stored[:], expected)
        assert np.array_equal(da.from_zarr(str(store)).compute(), expected)
        # A GraphError raised on a worker reaches the client with its problems.
        future = client.submit(noisegraph.Graph, {"seed": 1, "output": "x", "nodes": []})
        with pytest.raises(noisegraph.GraphError) as error:
            future.result()
        assert any(p.field == "output" for p in error.value.problems)


def test_xarray_coordinates_are_view_units(graph) -> None:

    arr = noisegraph.xarray.bake(graph, (6, 8), origin=(1.0, 2.0), extent=(3.0, 4.0),
                                 backend="cpu")
    assert isinstance(arr, xr.DataArray) and arr.dims == ("y", "x")
    assert np.array_equal(arr["x"].values, 2.0 + np.arange(8) * 0.5)
    assert np.array_equal(arr["y"].values, 1.0 + np.arange(6) * 0.5)
    assert np.array_equal(arr.values, noisegraph.bake(graph, (6, 8), origin=(1.0, 2.0),
                                                      extent=(3.0, 4.0), backend="cpu"))
    assert arr.name == "fbm"
    lazy = noisegraph.xarray.bake(graph, (3, 6, 8), chunks=(1, 6, 8), node="fbm3",
                                  output="gradient", backend="cpu")
    assert lazy.dims == ("z", "y", "x", "channel")
    assert list(lazy["channel"].values) == ["value", "gradient.x", "gradient.y", "gradient.z"]
    assert isinstance(lazy.data, da.Array)
    assert np.array_equal(lazy.values, noisegraph.bake(graph, (3, 6, 8), node="fbm3",
                                                       output="gradient", backend="cpu"))


def test_the_readmes_cluster_example_runs_smaller(tmp_path: Path) -> None:
    """The README's 65536² example, as written there but at 512 x 768 in 128 x 256 chunks."""
    import re
    import subprocess
    import sys

    from conftest import REPO

    readme = (REPO / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    [example] = [b for b in blocks if "(65536, 65536), (4096, 4096)" in b]
    small = (example.replace("(65536, 65536), (4096, 4096)", "(512, 768), (128, 256)")
             .replace("30000:30008", "300:308"))
    assert small != example
    script = tmp_path / "example.py"
    script.write_text(small)
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    graph = noisegraph.Graph.preset("terrain")
    expected = noisegraph.bake(graph, (512, 768), extent=(64.0, 64.0), backend="cpu")
    stored = zarr.open_array(str(tmp_path / "terrain.zarr"), mode="r")
    assert stored.chunks == (128, 256)
    assert np.array_equal(stored[:], expected)
    printed = np.array([float(v) for v in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", result.stdout)])
    assert printed.size == 64
    assert np.allclose(printed, expected[300:308, 300:308].ravel(), rtol=1e-6, atol=1e-7)
