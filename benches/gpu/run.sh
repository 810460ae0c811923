#!/usr/bin/env bash
# The GPU benchmark in one command, on any machine with a Vulkan adapter (or another wgpu
# backend): builds the bench and the `noisegraph` binary in release, prints the adapter and
# driver, measures every workload (BENCHMARKS.md, "GPU benchmark") and writes gpu-bench.md
# (the table for BENCHMARKS.md) and gpu-bench.json to --out DIR (default target/gpu-bench).
#
#   benches/gpu/run.sh [--quick] [--out DIR] [--peak-flops OP/S] [--peak-bw B/S]
#   benches/gpu/run.sh --prebuild DIR
#
# --quick: small sizes, few repetitions (CI runs it on lavapipe). The peaks default to an
# H200's (60e12 fp32 FLOP/s, 4.8e12 B/s) when the adapter's name says H200; otherwise the
# roofline fractions are "n/a" unless given.
#
# A machine without a Rust toolchain (the H200 machine has none, and no network): run
# `--prebuild DIR` where cargo is, which builds the two binaries and copies them (stripped)
# with the commit into DIR; then on that machine, with DIR in the same place, run this script
# with GPU_BENCH_PREBUILT=DIR (the default when cargo is missing and .gpubench/ exists).
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
start=$(date +%s)

# Builds only what the bench needs (the bench target, the binary it runs, their crates);
# cargo's JSON messages name the executables. GPU_BENCH_PROFILE=test builds with the test
# profile instead of release, reusing what `cargo test` built (CI does: the kernels' times
# are lavapipe's JIT code either way; the host's parts run slower).
build() {
    local cmd=(cargo bench --bench gpu --no-run)
    case "${GPU_BENCH_PROFILE:-release}" in
        release) ;;
        test) cmd=(cargo test --bench gpu --no-run) ;;
        *) echo "GPU_BENCH_PROFILE must be release or test (got '$GPU_BENCH_PROFILE')" >&2; exit 2 ;;
    esac
    "${cmd[@]}" --message-format=json-render-diagnostics >target/gpu-bench-build.json
    echo "gpu bench: build (${GPU_BENCH_PROFILE:-release}) $(($(date +%s) - start)) s" >&2
}
# The executable of the cargo target of kind $1 named $2.
executable() {
    grep "\"kind\":\[\"$1\"\]" target/gpu-bench-build.json | grep "\"name\":\"$2\"" |
        grep -o '"executable":"[^"]*"' | cut -d'"' -f4 | tail -n 1
}

if [[ "${1:-}" == --prebuild ]]; then
    dir="${2:?usage: benches/gpu/run.sh --prebuild DIR}"
    mkdir -p target "$dir"
    build
    cp "$(executable bench gpu)" "$dir/gpu-bench"
    cp "$(executable bin noisegraph)" "$dir/noisegraph"
    if command -v strip >/dev/null; then strip "$dir/gpu-bench" "$dir/noisegraph"; fi
    git rev-parse --short HEAD >"$dir/COMMIT"
    ls -l "$dir" >&2
    exit 0
fi

prebuilt="${GPU_BENCH_PREBUILT:-}"
if [[ -z "$prebuilt" ]] && ! command -v cargo >/dev/null && [[ -x .gpubench/gpu-bench ]]; then
    prebuilt=.gpubench
fi
if command -v vulkaninfo >/dev/null; then
    vulkaninfo --summary 2>/dev/null | grep -E "deviceName|driverName|driverInfo|apiVersion" || true
fi
if [[ -n "$prebuilt" ]]; then
    echo "gpu bench: prebuilt binaries in $prebuilt (commit $(cat "$prebuilt/COMMIT"))" >&2
    "$prebuilt/gpu-bench" --noisegraph "$prebuilt/noisegraph" --commit "$(cat "$prebuilt/COMMIT")" "$@"
else
    mkdir -p target
    build
    "$(executable bench gpu)" "$@"
fi
echo "gpu bench: total $(($(date +%s) - start)) s" >&2
