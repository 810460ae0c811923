"""Medians of benches/formats/run.sh's results as a Markdown table per image size.

Usage: summary.py RESULTS.csv
"""

import csv
import statistics
import sys
from collections import defaultdict


def main():
    rows = defaultdict(list)
    order = []
    with open(sys.argv[1]) as f:
        for r in csv.DictReader(f):
            key = (int(r["size"]), r["case"])
            if key not in rows:
                order.append(key)
            rows[key].append(r)
    for size in sorted({s for s, _ in order}):
        base = rows[(size, "npy")]
        med = lambda runs, k: statistics.median(float(r[k] or 0) for r in runs)
        npy_wall, npy_cpu = med(base, "wall_s"), med(base, "cpu_s")
        npy_bytes = med(base, "bytes")
        loads = [float(r["load"]) for (s, _), runs in rows.items() if s == size for r in runs if r.get("load")]
        counts = sorted({len(runs) for (s, _), runs in rows.items() if s == size})
        load = f", load average {min(loads):.1f} to {max(loads):.1f}" if loads else ""
        print(f"\n{size}x{size}, medians of {'/'.join(map(str, counts))} interleaved runs{load}:\n")
        print("| case | wall s | x npy (wall) | CPU s | x npy (CPU) | peak RSS MiB | x npy (RSS) | file MB | x npy (file) |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        npy_rss = med(base, "rss_kb")
        for s, case in order:
            if s != size:
                continue
            runs = rows[(s, case)]
            wall, cpu, rss, size_b = med(runs, "wall_s"), med(runs, "cpu_s"), med(runs, "rss_kb"), med(runs, "bytes")
            print(
                f"| {case} | {wall:.2f} | {wall / npy_wall:.2f} | {cpu:.2f} | {cpu / npy_cpu:.2f} "
                f"| {rss / 1024:.0f} | {rss / npy_rss:.2f} | {size_b / 1e6:.1f} | {size_b / npy_bytes:.2f} |"
            )

if __name__ == "__main__":
    main()
