"""The exceptions of a graph that fails validation: one :class:`Problem` per issue."""

from __future__ import annotations

from typing import NamedTuple, Sequence


class Problem(NamedTuple):
    """One problem in a graph: which node (``None`` for a graph-level field such as
    ``seed``, ``output`` or ``nodes``), which field, and what is wrong."""

    node: str | None
    field: str
    message: str

    def __str__(self) -> str:
        if self.node is None:
            return f"field '{self.field}': {self.message}"
        return f"node '{self.node}', field '{self.field}': {self.message}"


class GraphError(ValueError):
    """A graph failed validation. ``problems`` lists every problem found (not only the
    first), each naming its node and field; ``str(error)`` lists them too."""

    problems: list[Problem]

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = list(problems)

    def __reduce__(self) -> tuple[type[GraphError], tuple[str, list[Problem]]]:
        # Keeps the problems when the error crosses processes (Dask workers).
        return (GraphError, (str(self), self.problems))
