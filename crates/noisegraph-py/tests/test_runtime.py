"""The runtime contract: the GIL is released during bakes and queries, Ctrl-C interrupts a
long bake, threads= caps the CPU path, and a Rust panic arrives as an exception."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import noisegraph

HEAVY = {
    "seed": 2,
    "output": "f",
    "nodes": [
        {"id": "c", "type": "cellular", "frequency": 16},
        {"id": "f", "type": "fbm", "source": "c", "octaves": 16},
    ],
}


def largest_gap_while(work) -> tuple[float, float]:
    """Runs `work` in a thread while this thread keeps running Python code; returns the
    longest pause between two steps of this thread and how long `work` took."""
    done = threading.Event()
    timing: dict[str, float] = {}

    def run() -> None:
        start = time.perf_counter()
        work()
        timing["work"] = time.perf_counter() - start
        done.set()

    thread = threading.Thread(target=run)
    last = time.perf_counter()
    gap = 0.0
    thread.start()
    while not done.is_set():
        sum(range(200))  # Python code, holding the GIL while it runs
        now = time.perf_counter()
        gap = max(gap, now - last)
        last = now
    thread.join()
    return gap, timing["work"]


def test_python_keeps_running_during_a_bake() -> None:
    # One band (under 2^20 samples): were the GIL held, this thread would stop for all of it.
    gap, took = largest_gap_while(lambda: noisegraph.bake(HEAVY, (1000, 1000), backend="cpu"))
    assert took > 0.05, "the bake is long enough to see"
    assert gap < took / 3, f"longest pause {gap:.3f} s during a {took:.3f} s bake"


def test_python_keeps_running_during_a_query() -> None:
    points = np.random.default_rng(3).uniform(0, 10, size=(1_000_000, 2))
    gap, took = largest_gap_while(lambda: noisegraph.sample(HEAVY, points, backend="cpu"))
    assert took > 0.05
    assert gap < took / 3, f"longest pause {gap:.3f} s during a {took:.3f} s query"


def test_ctrl_c_interrupts_a_long_bake() -> None:
    start = time.perf_counter()
    noisegraph.bake(HEAVY, (1024, 1024), backend="cpu")
    band = time.perf_counter() - start  # one band's time
    shape = (64 * 1024, 1024)  # 64 bands
    out = np.full(shape, np.nan, dtype=np.float32)
    timer = threading.Timer(2 * band, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        noisegraph.bake(HEAVY, shape, out=out, backend="cpu")
    took = time.perf_counter() - start
    timer.join()
    assert took < 2 * band + 4 * band + 1.0, f"stopped after {took:.2f} s (a band takes {band:.2f} s)"
    assert np.isnan(out[-1]).all(), "the last band was never baked"
    assert not np.isnan(out[0]).any(), "the first band was"


def test_threads_caps_the_cpu_path() -> None:
    wall = time.perf_counter()
    cpu = time.process_time()
    noisegraph.bake(HEAVY, (1500, 1000), threads=1, backend="cpu")
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert cpu < 1.25 * wall, f"threads=1 used {cpu:.2f} s of CPU in {wall:.2f} s"
    # The pool has exactly the threads asked for.
    noisegraph.bake(HEAVY, (8, 8), threads=3, backend="cpu")
    names = [p.read_text().strip() for p in Path("/proc/self/task").glob("*/comm")]
    assert sorted(n for n in names if n.startswith("noisegraph-3.")) == [
        "noisegraph-3.0", "noisegraph-3.1", "noisegraph-3.2"]


def test_a_rust_panic_is_a_runtime_error() -> None:
    with pytest.raises(RuntimeError, match="internal error .*panic requested"):
        noisegraph._native._panic_for_tests()
    # The module still works afterwards.
    assert noisegraph.bake(HEAVY, (4, 4), backend="cpu").shape == (4, 4)


@pytest.mark.parametrize("seed", range(3))
def test_odd_inputs_never_panic(seed) -> None:
    """A sweep of odd but legal, and illegal, requests: each is a result or a
    ValueError/TypeError, never a panic (RuntimeError) or a crash."""
    rng = np.random.default_rng(seed)
    graph = noisegraph.Graph.preset("terrain")
    for _ in range(40):
        shape = tuple(int(s) for s in rng.choice([1, 2, 3, 7, 64, 0, -1], size=rng.integers(1, 5)))
        origin = tuple(float(v) for v in rng.choice([0.0, -1e12, 1e12, 2.0**40, 3.5],
                                                    size=rng.integers(1, 4)))
        extent = float(rng.choice([1e-9, 1.0, 1e9, 2.0**40, 0.5]))
        output = str(rng.choice(["value", "gradient", "curl"]))
        try:
            noisegraph.bake(graph, shape, origin=origin, extent=extent, output=output,
                            backend="cpu")
        except (ValueError, TypeError):
            pass
        points = rng.choice([0.0, 1e30, -3.0, 2.0**40], size=(int(rng.integers(0, 5)), 2))
        try:
            noisegraph.sample(graph, points, gradient=bool(rng.integers(0, 2)), backend="cpu")
        except (ValueError, TypeError):
            pass
