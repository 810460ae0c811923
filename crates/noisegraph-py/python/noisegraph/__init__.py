"""noisegraph: a GPU compute-shader noise engine, in numpy's conventions.

Shapes are numpy's: (H, W) for an image, (D, H, W) for a volume, never W x H. Offsets,
origins and extents are in numpy order too: (y, x), or (z, y, x). Arrays come back float32
in C order; bakes give the same numbers as ``noisegraph bake`` writes to .npy, bit for bit on
the CPU path, and release the GIL while they run.

    >>> import noisegraph
    >>> g = noisegraph.Graph.preset("terrain")
    >>> field = noisegraph.bake(g, (512, 512))
    >>> field.shape, field.dtype
    ((512, 512), dtype('float32'))

``noisegraph.dask.bake`` bakes a view larger than memory as a Dask array (one ``bake_tile``
per chunk); ``noisegraph.xarray.bake`` wraps a bake in an ``xarray.DataArray`` with x/y(/z)
coordinates in view units.
"""

from ._builder import GraphBuilder, NodeBuilder
from ._errors import GraphError, Problem
from ._schema import node_types
from ._wgsl import WgslModule, wgsl
from ._native import (
    MAX_SIDE,
    PARITY_TOLERANCE,
    Graph,
    __version__,
    analyze,
    bake,
    bake_tile,
    get_threads,
    info,
    parity,
    pixel_coordinates,
    presets,
    sample,
    schema,
    set_threads,
)

__all__ = [
    "MAX_SIDE",
    "PARITY_TOLERANCE",
    "Graph",
    "GraphBuilder",
    "GraphError",
    "NodeBuilder",
    "Problem",
    "__version__",
    "analyze",
    "bake",
    "bake_tile",
    "get_threads",
    "info",
    "node_types",
    "parity",
    "pixel_coordinates",
    "presets",
    "sample",
    "schema",
    "set_threads",
    "WgslModule",
    "wgsl",
]
