#!/usr/bin/env bash
# Issue 23's GPU checks as one prepared run, for a session lent a GPU machine. Here, first:
#   bash ../shared/gpu/stage.sh                          # node, pruned node_modules, the sm_90 module
#   npx tsx bench/build-gpu-anchors.ts                   # llama.cpp's loop and llama-bench, CUDA build
#   cp bench/results/<scenario 4 JSON on spark-code-tiny> .gpu/acceptance.json   (optional)
# then through the device tool, carrying .gpu and .spark-test/native-anchor-cuda:
#   bash .gpu/device.sh "bash bench/gpu-check.sh"
# Every step prints its whole output (device.sh keeps it in $OUT/log.txt: the device tool brings
# back at most 8 files) and has its own time limit, cut to what is left of GPU_CHECK_SECONDS
# (default 500), so the run ends inside the device call (GPU_CHECK_STEPS=a,b: only those steps); a step that fails or crashes (its exit
# status is printed) does not stop the others. Order: the device-sampling
# check first (whether `device_sampling = "auto"` is safe on CUDA: on lavapipe switching a
# sequence's backend sampler corrupted the heap), then the decode figures the issue's targets name.
set -uo pipefail
cd "$(dirname "$0")/.."
models=$(mktemp -d)
deadline=$((SECONDS + ${GPU_CHECK_SECONDS:-500}))
step() {
  local name=$1 limit=$2
  shift 2
  # GPU_CHECK_STEPS=a,b runs only those steps (a rerun of what failed).
  if [[ -n "${GPU_CHECK_STEPS:-}" && ",$GPU_CHECK_STEPS," != *",$name,"* ]]; then return; fi
  local left=$((deadline - SECONDS - 5))
  ((left < limit)) && limit=$left
  if ((limit < 10)); then
    echo "== $name: skipped, no time left"
    return
  fi
  echo "== $name (${limit} s): $*"
  timeout "$limit" "$@" 2>&1
  echo "== $name: exit status $? after $SECONDS s"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1
# The two q8_0 shapes in parallel processes (each most of a minute of one core).
tsx bench/write-shape-model.ts --shape 0.5b >"$models/0.5b" 2>&1 &
tsx bench/write-shape-model.ts --shape 1.5b >"$models/1.5b" 2>&1 &
wait
model05=$(tail -n 1 "$models/0.5b")
model15=$(tail -n 1 "$models/1.5b")
echo "models written after $SECONDS s: $model05 $model15"
step device-sampling 70 tsx bench/device-sampling-check.ts --gpu --shapes 0.5b --rounds 3
step token-overhead 150 tsx bench/llama-token-overhead.ts --gpu --shapes 0.5b,1.5b --threads 4 \
  --rounds 2 --tokens 256 --temperatures 0,0.7
# Spark through the gateway as users get it (WebSocket, greedy): short prompt and 8k context.
step gateway-0.5b 45 tsx bench/run.ts --gpu --scenario 6 --model "$model05" --threads 4
step gateway-1.5b 45 tsx bench/run.ts --gpu --scenario 6 --model "$model15" --threads 4
# llama-bench's tg at the gateway's two contexts (empty and 8k deep), all layers on the GPU, for
# 256 tokens (as llama-token-overhead.ts) and 1,024 (as the gateway scenario decodes).
cuda=node_modules/@node-llama-cpp/linux-x64-cuda/bins/linux-x64-cuda
bench=$PWD/.spark-test/native-anchor-cuda/llama-bench
step llama-bench-depth 60 bash -c "cd $cuda && $bench -m $model05 -m $model15 -p 0 -n 256,1024 -d 0,8192 -ngl 999 -r 2 -o md"
step tool-turn 60 tsx bench/tool-turn-decode.ts --gpu --shapes 0.5b --rounds 2
acceptance=()
[ -f .gpu/acceptance.json ] && acceptance=(--acceptance .gpu/acceptance.json)
step step-cost 50 tsx bench/speculative-step-cost.ts --gpu --shape 1.5b --type q8_0 --rounds 2 "${acceptance[@]}"
step call-lookup 40 tsx bench/call-lookup-decode.ts --gpu --rounds 2
echo "gpu-check done after $SECONDS s"
