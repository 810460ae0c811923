#!/usr/bin/env bash
# The GPU benchmark in one command, on any machine with a Vulkan adapter (or another wgpu
# backend): builds the bench and the `noisegraph` binary in release, prints the adapter and
# driver, measures every workload and writes gpu-bench.md (the table for BENCHMARKS.md) and
# gpu-bench.json to --out DIR (default target/gpu-bench).
#
#   benches/gpu/run.sh [--quick] [--out DIR] [--peak-flops OP/S] [--peak-bw B/S]
#
# --quick: small sizes, few repetitions (CI runs it on lavapipe). The peaks default to an
# H200's (60e12 fp32 FLOP/s, 4.8e12 B/s) when the adapter's name says H200; otherwise the
# roofline fractions are "n/a" unless given. CARGO_BUILD_JOBS limits the build's jobs.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
start=$(date +%s)
# Builds only what the bench needs: the bench target, the binary it runs, their crates.
cargo bench --bench gpu --no-run
echo "gpu bench: build $(($(date +%s) - start)) s" >&2
command -v vulkaninfo >/dev/null && vulkaninfo --summary 2>/dev/null | grep -E "deviceName|driverName|driverInfo|apiVersion" || true
cargo bench --bench gpu -- "$@"
echo "gpu bench: total $(($(date +%s) - start)) s" >&2
