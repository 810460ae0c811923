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
        npy = statistics.median(float(r["wall_s"]) for r in rows[(size, "npy")])
        print(f"\n{size}x{size}, medians of {len(rows[(size, 'npy')])} interleaved runs:\n")
        print("| case | wall s | x npy | CPU s | peak RSS MB | file MB |")
        print("|---|---:|---:|---:|---:|---:|")
        for s, case in order:
            if s != size:
                continue
            runs = rows[(s, case)]
            wall = statistics.median(float(r["wall_s"]) for r in runs)
            cpu = statistics.median(float(r["cpu_s"]) for r in runs)
            rss = statistics.median(float(r["rss_kb"]) for r in runs) / 1024
            size_mb = statistics.median(float(r["bytes"] or 0) for r in runs) / 1e6
            print(f"| {case} | {wall:.2f} | {wall / npy:.2f} | {cpu:.2f} | {rss:.0f} | {size_mb:.1f} |")


if __name__ == "__main__":
    main()
