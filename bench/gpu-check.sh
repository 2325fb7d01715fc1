#!/usr/bin/env bash
# Issue 23's GPU checks as one prepared run, for a session lent a GPU machine. Stage the checkout
# with ../shared/gpu/stage.sh (see its README), then through the device tool:
#   bash .gpu/device.sh "bash bench/gpu-check.sh"
# Each step has its own time limit and writes its whole output under $OUT/gpu-check/; a step that
# fails or crashes (exit status in its file) does not stop the others. Order: the device-sampling
# check first (whether `device_sampling = "auto"` is safe on CUDA: on lavapipe switching a
# sequence's backend sampler corrupted the heap), then the decode figures the issue's targets name.
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp}/gpu-check"
mkdir -p "$out"
step() {
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*"
  timeout "$limit" "$@" >"$out/$name.txt" 2>&1
  echo "exit status $?" >>"$out/$name.txt"
  tail -n 30 "$out/$name.txt"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >"$out/gpu.txt" 2>&1
step device-sampling 120 tsx bench/device-sampling-check.ts --gpu --shapes 0.5b --rounds 6
step gateway-decode 120 tsx bench/run.ts --gpu --scenario 6
step tool-turn 100 tsx bench/tool-turn-decode.ts --gpu --shapes 0.5b --rounds 2
step step-cost 80 tsx bench/speculative-step-cost.ts --gpu --shape 1.5b --type q8_0 --rounds 2
step call-lookup 80 tsx bench/call-lookup-decode.ts --gpu --rounds 2
