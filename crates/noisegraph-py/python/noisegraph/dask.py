"""Bakes larger than one machine, on Dask: :func:`bake` returns a ``dask.array.Array`` whose
every chunk is one :func:`noisegraph.bake_tile` of the whole view.

Tiles are bit-exact windows of the view, so ``.compute()`` equals :func:`noisegraph.bake`
bit for bit on the CPU path, whatever the chunks and wherever they run (threads, worker
processes, ``dask.distributed`` clusters); ``.to_zarr(...)`` writes each chunk as it is
baked, so a bake far larger than memory never gathers in one place.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any, Literal, Sequence

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.highlevelgraph import HighLevelGraph

from ._native import Graph, bake_tile

__all__ = ["bake"]

_BACKENDS = ("auto", "cpu", "gpu")


def bake(
    graph: Graph | dict[str, Any],
    shape: Sequence[int],
    chunks: Any = "auto",
    *,
    node: str | None = None,
    origin: Sequence[float] | None = None,
    extent: float | Sequence[float] | None = None,
    output: Literal["value", "gradient", "curl"] = "value",
    backend: Literal["auto", "cpu", "gpu"] = "auto",
    threads: int | None = None,
) -> da.Array:
    """A lazy bake of ``graph`` over a view of ``shape`` ((H, W) or (D, H, W)), in chunks.

    ``chunks`` is anything ``dask.array`` takes for the spatial axes (``(1024, 1024)``,
    ``"auto"``, explicit tuples); the channel axis of ``output="gradient"`` or ``"curl"`` is
    one chunk. The other options are :func:`noisegraph.bake`'s. ``threads`` caps each
    chunk's CPU threads: on a machine running several worker processes (or threads), give
    ``threads=cores // concurrent chunks`` so that they do not oversubscribe the cores.

    Every argument is checked here (a bad graph raises ``GraphError`` now, not at
    ``.compute()``), by baking one pixel on the CPU path.
    """
    graph = graph if isinstance(graph, Graph) else Graph(graph)
    if backend not in _BACKENDS:
        raise ValueError(f"backend: unknown backend '{backend}' (auto, cpu, gpu)")
    options: dict[str, Any] = dict(
        node=node, origin=origin, extent=extent, output=output, threads=threads
    )
    shape = tuple(shape)
    ndim = len(shape)
    # One pixel checks every argument and gives the channel axis (if any).
    probe = bake_tile(graph, shape, (0,) * ndim, (1,) * ndim, backend="cpu", **options)
    spatial = da.core.normalize_chunks(chunks, shape=shape, dtype=np.float32)
    channels = probe.shape[ndim:]
    name = "noisegraph-bake-" + tokenize(
        graph.to_json(), shape, spatial, node, origin, extent, output, backend, threads
    )
    task = functools.partial(_bake_chunk, graph, shape, backend, options)
    starts = [np.cumsum((0,) + sizes[:-1]).tolist() for sizes in spatial]
    layer: dict[Any, Any] = {}
    for index in itertools.product(*(range(len(sizes)) for sizes in spatial)):
        offset = tuple(starts[axis][i] for axis, i in enumerate(index))
        tile = tuple(spatial[axis][i] for axis, i in enumerate(index))
        key = (name, *index) + (0,) * len(channels)
        layer[key] = (task, offset, tile)
    dsk = HighLevelGraph.from_collections(name, layer, dependencies=())
    all_chunks = tuple(spatial) + tuple((c,) for c in channels)
    meta = np.empty((0,) * (ndim + len(channels)), dtype=np.float32)
    return da.Array(dsk, name, chunks=all_chunks, dtype=np.float32, meta=meta)


def _bake_chunk(
    graph: Graph,
    shape: tuple[int, ...],
    backend: Literal["auto", "cpu", "gpu"],
    options: dict[str, Any],
    offset: tuple[int, ...],
    tile: tuple[int, ...],
) -> np.ndarray:
    """One chunk: the tile of the view at ``offset``."""
    return bake_tile(graph, shape, offset, tile, backend=backend, **options)
