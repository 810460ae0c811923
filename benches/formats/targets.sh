#!/usr/bin/env bash
# The issue's targets, timed finer than /usr/bin/time's 10 ms: the whole-process wall time of
# the 4096² .npy, 8-bit PNG and 16-bit PNG bakes of examples/terrain.json (CPU path), from
# the shell's nanosecond clock, ROUNDS interleaved rounds (default 11); prints the medians
# and each PNG's ratio to the .npy bake, and the load average before and after.
#
#   benches/formats/targets.sh [ROUNDS]     (NOISEGRAPH_BIN: default target/release/noisegraph)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-11}
tool=${NOISEGRAPH_BIN:-target/release/noisegraph}
work=${BENCH_DIR:-target/bench-formats}
mkdir -p "$work"
declare -A cases=([npy]="out.npy" [png8]="out.png" [png16]="out.png --format png16")
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
times="$work/targets.txt"
: >"$times"
for _ in $(seq 1 "$rounds"); do
    for case in npy png8 png16; do
        read -r -a args <<<"${cases[$case]}"
        start=$(date +%s%N)
        "$tool" bake examples/terrain.json --size 4096x4096 --backend cpu \
            -o "$work/${args[0]}" "${args[@]:1}" 2>/dev/null
        end=$(date +%s%N)
        echo "$case $(((end - start) / 1000))" >>"$times"
        rm -f "$work"/out.*
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$times" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    case, us = line.split()
    runs.setdefault(case, []).append(int(us) / 1e6)
npy = statistics.median(runs["npy"])
for case in ("npy", "png8", "png16"):
    t = runs[case]
    m = statistics.median(t)
    print(f"{case}: median {m:.3f} s ({min(t):.3f} to {max(t):.3f}, {len(t)} runs), {m / npy:.2f}x the .npy bake")
PY
