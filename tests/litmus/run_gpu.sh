#!/usr/bin/env bash
# Runs every litmus test on a GPU and prints the count of each outcome: the numbers to set beside the
# emulator's in the book's table. Needs a visible GPU and the gpu preset built:
#   cmake --preset gpu && cmake --build --preset gpu --target litmus_mp_gpu litmus_sb_gpu litmus_lb_gpu litmus_coherence_gpu \
#     litmus_iriw_gpu litmus_fused_gpu
#   tests/litmus/run_gpu.sh [OUTFILE]        (default: print only)
# Options for every run come from the environment: ITERATIONS (launches, default 2000), INSTANCES
# (tests per launch, default 512) and STRESS (blocks hammering memory meanwhile, default 256; weak
# outcomes rarely show on a GPU without it). Nothing here asserts: a GPU may show fewer weak outcomes
# than the model allows, and the counts are the result.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
bin=build/gpu/bin/gpu
out=${1:-/dev/null}
iterations=${ITERATIONS:-2000}
instances=${INSTANCES:-512}
stress=${STRESS:-256}

nvidia-smi -L | tee "$out"
run() {  # run PROGRAM VARIANT
  "$bin/litmus_$1" --variant "$2" --iterations "$iterations" --instances "$instances" --stress "$stress" 2>&1 |
    tee -a "$out"
}
for v in none writer-fence reader-fence fences block-fences release-acquire warp-vote warp-vote-fences \
  volatile-data volatile-data-fences relaxed-data; do run mp "$v"; done
for v in none fences; do run sb "$v"; done
for v in none fences; do run lb "$v"; done
for v in corr-plain corr-volatile coww; do run coherence "$v"; done
for v in plain volatile fences; do run iriw "$v"; done
for v in fused split; do run fused "$v"; done
