#!/usr/bin/env bash
# Chapter 09's Onesweep on uint64 keys, a tile-shape sweep on a GPU: builds ch09_onesweep_u64_sweep.cu
# once per set of variants (-DSWEEP_SET=1..11, at once: nvcc is one process per program) and runs each.
# Prints each shape's time for uint64 keys and pairs against cub::DeviceRadixSort at 2^24, 2^26 and
# 2^28 (the faster of its int and size_t item counts, both printed).
#
#   tests/gpu/tuning/ch09_onesweep_u64_sweep.sh          every set
#   tests/gpu/tuning/ch09_onesweep_u64_sweep.sh 8 9      only these (8: the given shapes)
set -euo pipefail
if (($#)); then sets=("$@"); else sets=(1 2 3 4 5 6 7 8 9 10 11); fi
cd "$(dirname "$0")/../../.."
work=$(mktemp -d)
for set in "${sets[@]}"; do
  nvcc -std=c++17 -O3 -arch=sm_90 -DSWEEP_SET="$set" -I solutions/09_radix_sort -I chapters/09_radix_sort \
    -I common/include -I tests/gpu/tuning tests/gpu/tuning/ch09_onesweep_u64_sweep.cu -o "$work/sweep$set" &
done
wait
for set in "${sets[@]}"; do
  echo "== set $set"
  "$work/sweep$set"
done
