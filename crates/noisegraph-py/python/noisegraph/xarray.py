"""Bakes as ``xarray.DataArray``: dims ``("y", "x")`` or ``("z", "y", "x")`` (plus
``"channel"`` for gradient and curl outputs) with each pixel's position in view units as
coordinates, in memory or, with ``chunks``, lazily on Dask."""

from __future__ import annotations

from typing import Any, Literal, Sequence

import xarray as xr

from ._native import Graph, bake as _bake, pixel_coordinates

__all__ = ["bake", "CHANNELS"]

#: The channel names of each output, as the tool's EXR files name them: for an image, then
#: for a volume.
CHANNELS: dict[str, tuple[list[str], list[str]]] = {
    "gradient": (
        ["value", "gradient.x", "gradient.y"],
        ["value", "gradient.x", "gradient.y", "gradient.z"],
    ),
    "curl": (["curl.x", "curl.y"], ["curl.x", "curl.y", "curl.z"]),
}


def bake(
    graph: Graph | dict[str, Any],
    shape: Sequence[int],
    *,
    chunks: Any = None,
    node: str | None = None,
    origin: Sequence[float] | None = None,
    extent: float | Sequence[float] | None = None,
    output: Literal["value", "gradient", "curl"] = "value",
    backend: Literal["auto", "cpu", "gpu"] = "auto",
    threads: int | None = None,
) -> xr.DataArray:
    """:func:`noisegraph.bake` (``chunks=None``) or :func:`noisegraph.dask.bake` (with
    ``chunks``) as a DataArray whose ``x``, ``y`` (and ``z``) coordinates are the pixels'
    positions in view units (:func:`noisegraph.pixel_coordinates`)."""
    graph = graph if isinstance(graph, Graph) else Graph(graph)
    options: dict[str, Any] = dict(
        node=node, origin=origin, extent=extent, output=output, backend=backend, threads=threads
    )
    if chunks is None:
        data: Any = _bake(graph, shape, **options)
    else:
        from . import dask as ng_dask

        data = ng_dask.bake(graph, shape, chunks, **options)
    shape = tuple(shape)
    axes = ["y", "x"] if len(shape) == 2 else ["z", "y", "x"]
    positions = pixel_coordinates(shape, origin=origin, extent=extent)
    coords: dict[str, Any] = dict(zip(axes, positions))
    dims = list(axes)
    if output in CHANNELS:
        dims.append("channel")
        coords["channel"] = CHANNELS[output][len(shape) == 3]
    return xr.DataArray(data, dims=dims, coords=coords, name=node or graph.output)
