"""The node kinds of the graph format, as the engine's schema declares them
(:func:`noisegraph.schema`): the package lists and checks kinds from it, never from a list of
its own."""

from __future__ import annotations

from typing import Any

from ._native import schema

_NODES: list[dict[str, Any]] = []


def _nodes() -> list[dict[str, Any]]:
    """The schema's node kinds, read once per process."""
    if not _NODES:
        _NODES.extend(schema()["nodes"])
    return _NODES


def node_schema(type: str) -> dict[str, Any]:
    """The schema entry of the node kind whose JSON ``type`` is ``type`` (a dict as in
    :func:`noisegraph.schema`); ``ValueError`` naming ``type`` for an unknown kind."""
    for node in _nodes():
        if node["type"] == type:
            return node
    raise ValueError(f"type: unknown node type '{type}' ({', '.join(node_types())})")


def node_types(category: str | None = None) -> list[str]:
    """The JSON ``type`` of every node kind, or of one ``category`` (``"family"``,
    ``"fractal"``, ``"warp"``, ``"pointwise"`` or ``"mapping"``), in the order of the README's
    tables."""
    categories = list(dict.fromkeys(node["category"] for node in _nodes()))
    if category is not None and category not in categories:
        raise ValueError(
            f"category: unknown category '{category}' ({', '.join(categories)})"
        )
    return [
        node["type"] for node in _nodes() if category is None or node["category"] == category
    ]
