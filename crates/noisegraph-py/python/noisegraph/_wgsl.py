"""``noisegraph.wgsl``: a node as one self-contained WGSL module for your own shaders."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ._native import Graph, _wgsl


class WgslModule(str):
    """The module's WGSL source (a ``str``: write it to a file, paste it into a shader), with
    what it defines: ``name`` (``fn NAME(p) -> f32``, ``NAME_precise(cell, local)`` and, when
    the node has a gradient, ``NAME_grad(p)``), ``node``, ``dims`` (the functions take
    ``vecN<f32>``), ``no_gradient`` (why ``NAME_grad`` is missing, or None), ``tables`` (a
    float32 array to bind as a read-only storage buffer when the module's tables are too large
    to inline, else None) and ``table_binding`` ((group, binding) of that buffer, or None)."""

    name: str
    node: str
    dims: int
    no_gradient: str | None
    tables: npt.NDArray[np.float32] | None
    table_binding: tuple[int, int] | None

    def __new__(cls, source: str = "", **fields: Any) -> WgslModule:
        module = super().__new__(cls, source)
        module.__dict__.update(fields)
        return module

    @property
    def source(self) -> str:
        """The WGSL source as a plain ``str``."""
        return str.__str__(self)


def wgsl(
    graph: Graph | dict[str, Any],
    *,
    node: str | None = None,
    name: str = "noise",
    table_binding: tuple[int, int] = (0, 0),
) -> WgslModule:
    """``node`` (the graph's output when None) as one self-contained WGSL module, the text
    ``noisegraph wgsl`` writes, named ``name``; a module whose tables are too large to inline
    reads them from a storage buffer at ``table_binding`` (group, binding)."""
    fields: dict[str, Any] = dict(_wgsl(graph, node=node, name=name, table_binding=table_binding))
    return WgslModule(fields.pop("source"), **fields)
