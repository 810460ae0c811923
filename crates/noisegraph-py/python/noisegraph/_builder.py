"""A graph builder mirroring the Rust ``GraphBuilder``: it writes the same JSON objects and
``build()`` runs them through the same parser, so a built graph and its JSON agree."""

from __future__ import annotations

from typing import Any, Sequence

from ._native import Graph
from ._schema import node_schema, node_types


class NodeBuilder:
    """Sets the fields of one node (returned by :meth:`GraphBuilder.node` and friends).

    Each method sets one field of the node's JSON object (the README's "Graph format" lists
    them) and returns the builder, so calls chain; :meth:`set` sets any other field, such as
    a family's own parameters (``fade``, ``jitter``, ``return``...). Nothing is checked until
    :meth:`GraphBuilder.build`, which reports every problem at once.
    """

    def __init__(self, fields: dict[str, Any]) -> None:
        self._fields = fields

    def set(self, key: str, value: Any) -> NodeBuilder:
        """Sets any field by its JSON name."""
        self._fields[key] = list(value) if isinstance(value, tuple) else value
        return self

    def frequency(self, frequency: float | Sequence[float]) -> NodeBuilder:
        """``frequency``: lattice cells per unit of space, on every axis or per axis
        (x, y[, z[, w]])."""
        return self.set("frequency", frequency)

    def seed_offset(self, offset: int) -> NodeBuilder:
        """``seed_offset``: added to the graph seed for this node."""
        return self.set("seed_offset", offset)

    def offset(self, offset: Sequence[float]) -> NodeBuilder:
        """``offset``: added to the position before scaling, per axis (x, y[, z[, w]])."""
        return self.set("offset", offset)

    def dims(self, dims: int) -> NodeBuilder:
        """``dims``: 2, 3 or 4, where the family has it."""
        return self.set("dims", dims)

    def z(self, z: float) -> NodeBuilder:
        """``z``: the slice coordinate of 3D and 4D noise."""
        return self.set("z", z)

    def w(self, w: float) -> NodeBuilder:
        """``w``: the fourth coordinate of 4D noise."""
        return self.set("w", w)

    def period(self, period: int) -> NodeBuilder:
        """``period``: lattice cells after which the lattice wraps (tileable families)."""
        return self.set("period", period)

    def octaves(self, octaves: int) -> NodeBuilder:
        """``octaves``: 1 to 32 (fractal nodes)."""
        return self.set("octaves", octaves)

    def lacunarity(self, lacunarity: float) -> NodeBuilder:
        """``lacunarity``: the frequency ratio between octaves (fractal nodes)."""
        return self.set("lacunarity", lacunarity)

    def gain(self, gain: float) -> NodeBuilder:
        """``gain``: the amplitude ratio between octaves (fractal nodes)."""
        return self.set("gain", gain)


class GraphBuilder:
    """Builds a :class:`Graph` node by node::

        b = GraphBuilder(seed=1337)
        b.node("base", "perlin").frequency(4)
        b.fractal("terrain", "fbm", "base").octaves(6).gain(0.5)
        graph = b.output("terrain").build()

    Keyword arguments of the node methods set fields too:
    ``b.node("base", "perlin", frequency=4)``.
    """

    def __init__(self, seed: int = 0) -> None:
        self._seed = seed
        self._output: str | None = None
        self._nodes: list[dict[str, Any]] = []

    def node(self, id: str, type: str, **fields: Any) -> NodeBuilder:
        """Adds a node of any ``type`` (:func:`noisegraph.node_types` lists them: families,
        fractals, ``warp``, point-wise operations); an unknown type is reported by
        :meth:`build` with the rest."""
        node: dict[str, Any] = {"id": id, "type": type}
        self._nodes.append(node)
        builder = NodeBuilder(node)
        for key, value in fields.items():
            builder.set(key, value)
        return builder

    def fractal(self, id: str, kind: str, source: str, **fields: Any) -> NodeBuilder:
        """Adds a fractal node over a family node; ``kind`` is one of
        ``node_types("fractal")``, anything else raises ``ValueError`` naming ``kind``."""
        kinds = node_types("fractal")
        if kind not in kinds:
            raise ValueError(f"kind: '{kind}' is not a fractal node type ({', '.join(kinds)})")
        return self.node(id, kind, **fields).set("source", source)

    def warp(
        self, id: str, source: str, displace: Sequence[str], amplitude: float, **fields: Any
    ) -> NodeBuilder:
        """Adds a warp of a generator by displacement fields."""
        return (
            self.node(id, "warp", **fields)
            .set("source", source)
            .set("displace", list(displace))
            .set("amplitude", amplitude)
        )

    def pointwise(
        self, id: str, op: str, inputs: Sequence[str] = (), **fields: Any
    ) -> NodeBuilder:
        """Adds a point-wise node: ``op`` is one of ``node_types("pointwise")`` (anything
        else raises ``ValueError`` naming ``op``), ``inputs`` its input nodes in order, which
        go where the schema puts them (``source`` for one, ``inputs`` for several, none for
        ``constant``)."""
        if op not in node_types("pointwise"):
            raise ValueError(
                f"op: '{op}' is not a point-wise node type ({', '.join(node_types('pointwise'))})"
            )
        node = self.node(id, op, **fields)
        declared = node_schema(op)["inputs"]
        if not declared and not inputs:
            return node
        if declared and declared[0]["count"] == "one" and len(inputs) == 1:
            return node.set(declared[0]["name"], inputs[0])
        # A list (or a count the schema does not take: build() reports it by name).
        name = declared[0]["name"] if declared else "inputs"
        return node.set(name, list(inputs))

    def output(self, id: str) -> GraphBuilder:
        """The node baked by default."""
        self._output = id
        return self

    def to_dict(self) -> dict[str, Any]:
        """The graph as a dict, exactly what :meth:`build` parses."""
        spec: dict[str, Any] = {"seed": self._seed}
        if self._output is not None:
            spec["output"] = self._output
        spec["nodes"] = [dict(node) for node in self._nodes]
        return spec

    def build(self) -> Graph:
        """Validates and builds the graph (every problem reported, as for JSON input)."""
        return Graph(self.to_dict())
