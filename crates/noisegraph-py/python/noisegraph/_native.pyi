"""Type stubs of the native module (crates/noisegraph-py/src); CI checks them against the
built module with mypy's stubtest."""

from os import PathLike
from typing import Any, Literal, Sequence, TypedDict, final

import numpy as np
import numpy.typing as npt

__all__ = [
    "Graph",
    "MAX_SIDE",
    "PARITY_TOLERANCE",
    "__version__",
    "_BAND_SAMPLES",
    "_bands_for_tests",
    "_panic_for_tests",
    "analyze",
    "bake",
    "bake_tile",
    "get_threads",
    "info",
    "parity",
    "pixel_coordinates",
    "presets",
    "sample",
    "schema",
    "set_threads",
    "_wgsl",
]

__version__: str
PARITY_TOLERANCE: float
MAX_SIDE: int
_BAND_SAMPLES: int

_Output = Literal["value", "gradient", "curl"]
_BackendName = Literal["auto", "cpu", "gpu"]
_GraphLike = Graph | dict[str, Any]
_F32Array = npt.NDArray[np.float32]

@final
class Graph:
    """A validated noise graph."""

    def __new__(cls, spec: dict[str, Any]) -> Graph: ...
    @staticmethod
    def from_dict(spec: dict[str, Any]) -> Graph: ...
    @staticmethod
    def from_json(text: str) -> Graph: ...
    @staticmethod
    def load(path: str | PathLike[str]) -> Graph: ...
    @staticmethod
    def preset(name: str) -> Graph: ...
    def to_json(self, indent: int | None = None) -> str: ...
    def to_dict(self) -> dict[str, Any]: ...
    @property
    def seed(self) -> int: ...
    @property
    def output(self) -> str: ...
    @property
    def node_ids(self) -> list[str]: ...
    def dims(self, node: str | None = None) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Graph], tuple[dict[str, Any]]]: ...

def bake(
    graph: _GraphLike,
    shape: Sequence[int],
    *,
    node: str | None = None,
    origin: Sequence[float] | None = None,
    extent: float | Sequence[float] | None = None,
    output: _Output = "value",
    backend: _BackendName = "auto",
    out: _F32Array | None = None,
    threads: int | None = None,
) -> _F32Array: ...
def bake_tile(
    graph: _GraphLike,
    shape: Sequence[int],
    offset: Sequence[int],
    tile_shape: Sequence[int],
    *,
    node: str | None = None,
    origin: Sequence[float] | None = None,
    extent: float | Sequence[float] | None = None,
    output: _Output = "value",
    backend: _BackendName = "auto",
    out: _F32Array | None = None,
    threads: int | None = None,
) -> _F32Array: ...
def pixel_coordinates(
    shape: Sequence[int],
    *,
    origin: Sequence[float] | None = None,
    extent: float | Sequence[float] | None = None,
) -> tuple[npt.NDArray[np.float64], ...]: ...
def sample(
    graph: _GraphLike,
    points: npt.ArrayLike,
    *,
    node: str | None = None,
    gradient: bool = False,
    backend: _BackendName = "auto",
    threads: int | None = None,
) -> _F32Array: ...

class _WgslFields(TypedDict):
    source: str
    name: str
    node: str
    dims: int
    no_gradient: str | None
    tables: _F32Array | None
    table_binding: tuple[int, int] | None

def _wgsl(
    graph: _GraphLike,
    *,
    node: str | None = None,
    name: str = "noise",
    table_binding: tuple[int, int] = ...,  # (0, 0)
) -> _WgslFields: ...
def presets() -> dict[str, str]: ...
def schema() -> dict[str, Any]: ...

class _StageParity(TypedDict):
    node: str
    family: str
    max_abs: float
    tolerance: float
    over: int
    total: int
    allowed_fraction: float
    passed: bool

def parity(
    graph: _GraphLike, shape: Sequence[int] | None = None, *, node: str | None = None
) -> list[_StageParity]: ...

class _Analysis(TypedDict):
    shape: tuple[int, ...]
    samples: int
    mean: float
    std: float
    min: float
    max: float
    skewness: float
    excess_kurtosis: float
    histogram: list[int]
    bin_edges: list[float]
    radial_power: npt.NDArray[np.float64]
    report_radii: list[int]
    peak_radius: float
    anisotropy: float

def analyze(array: _F32Array, *, bins: int = 16, slice: int = 0) -> _Analysis: ...

class _Adapter(TypedDict):
    name: str
    backend: str
    device_type: str
    driver: str

class _Info(TypedDict):
    version: str
    threads: int
    threads_setting: int | None
    vector_width: str
    vector_widths: list[str]
    adapter: _Adapter | None
    auto_backend: Literal["cpu", "gpu"]
    auto_reason: str | None

def info() -> _Info: ...
def set_threads(threads: int | None) -> None: ...
def get_threads() -> int | None: ...
def _panic_for_tests() -> None: ...
def _bands_for_tests(
    size: tuple[int, int, int], max_side: int | None = None
) -> list[tuple[tuple[int, int, int], tuple[int, int, int]]]: ...
