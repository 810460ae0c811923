"""The Python noise libraries users pick today against noisegraph, on one workload:
8-octave Perlin fBm (lacunarity 2, gain 0.5) at 1/64 lattice cell per pixel, float32 out.

    python benches/python/compare.py [--size 2048] [--rounds 5] [--dask 16384] [--dask-rounds 3]

Libraries that are not installed are skipped (pip install pyfastnoiselite tcod vnoise noise
opensimplex). Each figure is the median of --rounds runs of the whole workload, in the same
process, interleaved library by library; the slowest libraries (per-point calls, numpy
without numba) run on a band of rows of the image (--slow-rows) and are reported per sample.
With --dask N, also bakes an N x N view on a dask.distributed LocalCluster of 1 and of 2
worker processes (chunks of --chunk pixels square, one Dask thread per worker and the cores
split between the workers' bakes: threads=cores // workers), reduced on the workers and
written to Zarr ($BENCH_ZARR_DIR, else the temporary folder), and reports the medians of
--dask-rounds rounds and the workers' peak memory. Prints Markdown tables.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import tempfile
import time
from typing import Callable

import numpy as np

OCTAVES = 8
CELLS_PER_PIXEL = 1 / 64


def installed(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def fastnoiselite(h: int, w: int) -> Callable[[], np.ndarray]:
    from pyfastnoiselite.pyfastnoiselite import FastNoiseLite, FractalType, NoiseType

    noise = FastNoiseLite(1337)
    noise.noise_type = NoiseType.NoiseType_Perlin
    noise.fractal_type = FractalType.FractalType_FBm
    noise.fractal_octaves = OCTAVES
    noise.fractal_lacunarity = 2.0
    noise.fractal_gain = 0.5
    noise.frequency = CELLS_PER_PIXEL
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    coords = np.stack([xs.ravel(), ys.ravel()])
    return lambda: noise.gen_from_coords(coords).astype(np.float32, copy=False).reshape(h, w)


def tcod_noise(h: int, w: int) -> Callable[[], np.ndarray]:
    import tcod.noise

    noise = tcod.noise.Noise(2, algorithm=tcod.noise.Algorithm.PERLIN,
                             implementation=tcod.noise.Implementation.FBM, octaves=OCTAVES,
                             lacunarity=2.0, seed=1337)
    grid = tcod.noise.grid((h, w), CELLS_PER_PIXEL, indexing="ij")
    return lambda: noise[grid]


def vnoise_noise(h: int, w: int) -> Callable[[], np.ndarray]:
    import vnoise

    noise = vnoise.Noise(1337)
    xs = np.arange(w) * CELLS_PER_PIXEL
    ys = np.arange(h) * CELLS_PER_PIXEL
    return lambda: noise.noise2(ys, xs, octaves=OCTAVES, persistence=0.5, lacunarity=2.0,
                                grid_mode=True).astype(np.float32)


def caseman_noise(h: int, w: int) -> Callable[[], np.ndarray]:
    import noise

    def run() -> np.ndarray:
        out = np.empty((h, w), dtype=np.float32)
        for y in range(h):
            for x in range(w):
                out[y, x] = noise.pnoise2(x * CELLS_PER_PIXEL, y * CELLS_PER_PIXEL,
                                          octaves=OCTAVES)
        return out

    return run


def opensimplex_noise(h: int, w: int) -> Callable[[], np.ndarray]:
    import opensimplex

    opensimplex.seed(1337)
    xs = np.arange(w) * CELLS_PER_PIXEL
    ys = np.arange(h) * CELLS_PER_PIXEL

    def run() -> np.ndarray:
        total = np.zeros((h, w))
        for k in range(OCTAVES):
            total += 0.5**k * opensimplex.noise2array(xs * 2**k, ys * 2**k)
        return total.astype(np.float32)

    return run


def fbm_graph(size: int) -> dict:
    # `size` pixels over the unit extent at 1/64 cell per pixel: size/64 cells.
    return {
        "seed": 1337,
        "output": "fbm",
        "nodes": [
            {"id": "perlin", "type": "perlin", "frequency": size * CELLS_PER_PIXEL},
            {"id": "fbm", "type": "fbm", "source": "perlin", "octaves": OCTAVES,
             "lacunarity": 2.0, "gain": 0.5},
        ],
    }


def noisegraph_bake(h: int, w: int, **options) -> Callable[[], np.ndarray]:
    import noisegraph

    graph = noisegraph.Graph(fbm_graph(w))
    extent = (h / w, 1.0)  # square pixels
    out = options.pop("out", None)
    if out:
        buffer = np.empty((h, w), np.float32)
        return lambda: noisegraph.bake(graph, (h, w), extent=extent, backend="cpu", out=buffer,
                                       **options)
    return lambda: noisegraph.bake(graph, (h, w), extent=extent, backend="cpu", **options)


def median_seconds(run: Callable[[], np.ndarray], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
        assert result.dtype == np.float32 and np.isfinite(result).all()
    return statistics.median(times)


def worker_peak_mib() -> float:
    """This process's peak resident memory (run on each worker)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dask_rows(size: int, chunk: int, rounds: int) -> list[str]:
    import distributed

    import noisegraph
    import noisegraph.dask

    graph = noisegraph.Graph(fbm_graph(size))
    cores = os.cpu_count() or 1
    rows = []
    for workers in (1, 2):
        threads = max(1, cores // workers)
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            lazy = noisegraph.dask.bake(graph, (size, size), (chunk, chunk), backend="cpu",
                                        threads=threads)
            # The workers' peak with the package imported, before any bake; then warm them.
            client.run(lambda: __import__("noisegraph"))
            idle = max(client.run(worker_peak_mib).values())
            noisegraph.dask.bake(graph, (chunk, chunk), chunk, threads=threads).sum().compute()
            computes, writes = [], []
            for _ in range(rounds):
                # Each chunk reduced on its worker: only the sums travel.
                start = time.perf_counter()
                lazy.map_blocks(lambda b: np.array([[b.sum()]]), chunks=(1, 1)).compute()
                computes.append(time.perf_counter() - start)
                with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_ZARR_DIR")) as folder:
                    start = time.perf_counter()
                    lazy.to_zarr(os.path.join(folder, "bake.zarr"))
                    writes.append(time.perf_counter() - start)
            peak = max(client.run(worker_peak_mib).values())
        baked, written = statistics.median(computes), statistics.median(writes)
        samples = size * size
        rows.append(
            f"| {size}² in {chunk}² chunks, {workers} worker process(es) x {threads} thread(s) "
            f"| {baked:.2f} | {samples / baked / 1e6:.1f} | {written:.2f} | "
            f"{samples / written / 1e6:.1f} | {peak:.0f} ({idle:.0f} before baking) |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--slow-rows", type=int, default=64,
                        help="rows baked by the per-point and pure-numpy libraries")
    parser.add_argument("--dask", type=int, default=0, help="side of the Dask bake (0: none)")
    parser.add_argument("--chunk", type=int, default=2048)
    parser.add_argument("--dask-rounds", type=int, default=3)
    parser.add_argument("--dask-only", action="store_true", help="skip the libraries' table")
    args = parser.parse_args()
    n = args.size
    libraries = [
        ("pyfastnoiselite (FastNoiseLite, Cython, 1 thread)", "pyfastnoiselite", fastnoiselite, n),
        ("tcod.noise (libtcod)", "tcod", tcod_noise, n),
        ("vnoise (numpy Perlin)", "vnoise", vnoise_noise, n),
        ("noise (caseman, per point)", "noise", caseman_noise, args.slow_rows),
        ("opensimplex (numpy, no numba)", "opensimplex", opensimplex_noise, args.slow_rows // 4),
        ("noisegraph.bake (CPU path, all cores)", "noisegraph", noisegraph_bake, n),
        ("noisegraph.bake(out=...) (CPU path, all cores)", "noisegraph",
         lambda h, w: noisegraph_bake(h, w, out=True), n),
        ("noisegraph.bake(threads=1)", "noisegraph",
         lambda h, w: noisegraph_bake(h, w, threads=1), n),
    ]
    if args.dask_only:
        libraries = []
    runs = [(label, make(rows, n)) for label, module, make, rows in libraries if installed(module)]
    skipped = [label for label, module, *_ in libraries if not installed(module)]
    timings: dict[str, list[float]] = {label: [] for label, _ in runs}
    load_start = os.getloadavg()[0]
    samples = {label: run().size for label, run in runs}  # warm up and count
    for _ in range(args.rounds):
        for label, run in runs:
            timings[label].append(median_seconds(run, 1))
    if runs:
        base = None
        print(f"8-octave Perlin fBm at 1/64 cell per pixel, {n}x{n}, float32, "
              f"{os.cpu_count()} cores, median of {args.rounds} rounds\n")
        print("| library | ms (whole image) | Msamples/s | vs pyfastnoiselite |")
        print("|---|---:|---:|---:|")
        for label, _ in runs:
            seconds = statistics.median(timings[label])
            rate = samples[label] / seconds / 1e6
            base = rate if label.startswith("pyfastnoiselite") else base
            whole = n * n / (rate * 1e6) * 1e3
            ratio = f"{rate / base:.2f}x" if base else "-"
            note = "" if samples[label] == n * n else f" ({samples[label]} samples timed)"
            print(f"| {label}{note} | {whole:.1f} | {rate:.2f} | {ratio} |")
        for label in skipped:
            print(f"| {label} | not installed | | |")
    if args.dask:
        print(f"\nDask: {args.dask}² bake, chunks of {args.chunk}², median of "
              f"{args.dask_rounds} rounds\n")
        print("| bake | compute s | Msamples/s | to_zarr s | Msamples/s | "
              "peak RSS per worker, MiB |")
        print("|---|---:|---:|---:|---:|---:|")
        for row in dask_rows(args.dask, args.chunk, args.dask_rounds):
            print(row)
    print(f"\nload average (1 min): {load_start:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
