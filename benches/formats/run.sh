#!/usr/bin/env bash
# Every output format of `noisegraph bake` beside the .npy bake, and Pillow's and OpenEXR's
# own writers on the same image: wall time, CPU time (user + system), peak RSS (all from
# /usr/bin/time -v, the whole process) and file size. Runs are interleaved (each round runs
# every case once) so that load from other work spreads over all cases; each run notes the
# 1-minute load average; summary.py prints the medians as the table in BENCHMARKS.md.
#
#   benches/formats/run.sh [ROUNDS] [SIZE...]     (default: 3 rounds, 4096 and 16384)
#
# Needs: a release build (cargo build --release; NOISEGRAPH_BIN names another), /usr/bin/time (apt-get install time), and
# a Python with Pillow, NumPy and OpenEXR in $NOISEGRAPH_PYTHON (default python3).
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3}
shift || true
sizes=("${@:-4096 16384}")
read -r -a sizes <<<"${sizes[*]}"
tool=${NOISEGRAPH_BIN:-target/release/noisegraph}
python=${NOISEGRAPH_PYTHON:-python3}
graph=examples/terrain.json
work=${BENCH_DIR:-target/bench-formats}
mkdir -p "$work"
results="$work/results.csv"
echo "size,case,round,wall_s,cpu_s,rss_kb,bytes,load" >"$results"

# case name -> bake arguments (output file is appended)
declare -A cases=(
    [npy]="out.npy"
    [png8]="out.png"
    [png16]="out.png --format png16"
    [png16-default]="out.png --format png16 --png-compression default"
    [exr-zip]="out.exr"
    [exr-piz]="out.exr --exr-compression piz"
    [exr-rle]="out.exr --exr-compression rle"
    [exr-none]="out.exr --exr-compression none"
    [exr-half]="out.exr --exr-half"
    [tif]="out.tif"
    [r16]="out.r16"
    [r32]="out.r32"
    [ramp]="out.png --ramp terrain"
    [packed-png16]="out.png --format png16 --channels r=terrain,g=base,b=normal.x"
    [packed-exr]="out.exr --channels r=terrain,g=base,b=normal.x"
)
order=(npy png8 png16 png16-default exr-zip exr-piz exr-rle exr-none exr-half tif r16 r32 ramp packed-png16 packed-exr)
writers=(pillow-png8 pillow-png16 pillow-tif openexr-zip)
# BENCH_CASES / BENCH_WRITERS: a subset (space-separated names), e.g. for the largest size.
read -r -a order <<<"${BENCH_CASES:-${order[*]}}"
read -r -a writers <<<"${BENCH_WRITERS:-${writers[*]}}"

measure() { # size case round command...
    local size=$1 case=$2 round=$3
    shift 3
    local log="$work/time.log"
    /usr/bin/time -v "$@" >/dev/null 2>"$log"
    local wall cpu rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$log")
    cpu=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {print u + s}' "$log")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    local bytes load
    bytes=$(stat -c %s "$work"/out.* 2>/dev/null | head -1)
    load=$(cut -d' ' -f1 /proc/loadavg) # the 1-minute load average as the run ends
    echo "$size,$case,$round,$wall,$cpu,$rss,$bytes,$load" >>"$results"
    rm -f "$work"/out.*
}

for size in "${sizes[@]}"; do
    # The image Pillow and OpenEXR write: the .npy of the same bake.
    "$tool" bake "$graph" --size "${size}x$size" --backend cpu -o "$work/ref.npy" 2>/dev/null
    for round in $(seq 1 "$rounds"); do
        for case in "${order[@]}"; do
            read -r -a args <<<"${cases[$case]}"
            measure "$size" "$case" "$round" "$tool" bake "$graph" --size "${size}x$size" \
                --backend cpu -o "$work/${args[0]}" "${args[@]:1}"
        done
        for writer in "${writers[@]}"; do
            measure "$size" "$writer" "$round" "$python" benches/formats/writers.py \
                "$writer" "$work/ref.npy" "$work/out"
        done
    done
    rm -f "$work/ref.npy"
done
"$python" benches/formats/summary.py "$results"
