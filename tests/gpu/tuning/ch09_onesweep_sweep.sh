#!/usr/bin/env bash
# Chapter 09's Onesweep tuning sweep on a GPU: builds ch09_onesweep_sweep.cu (tile shapes and poll
# schedules as template and run-time choices of one program) and runs it. Prints each variant's
# time for uint32 keys and pairs against cub::DeviceRadixSort at 2^24, 2^26 and 2^28 (the faster of
# its int and size_t item counts, both printed).
#
#   tests/gpu/tuning/ch09_onesweep_sweep.sh            (NVCC_FLAGS=-DSHORT_SWEEP: the given shapes only;
#                                                        -DWIDE_SWEEP: longer tiles for the keys;
#                                                        -DPOLL_SWEEP: other poll schedules;
#                                                        -DPAIRS_SWEEP: other tiles for the pairs;
#                                                        -DLONG_PAIRS_SWEEP: longer ones;
#                                                        -DMIXED_SHAPES_SWEEP: keys in 384, both in 384 x 20;
#                                                        -DKEYS_384_SWEEP: keys in 384 threads capped for 3;
#                                                        -DLONGER_TILES_SWEEP: keys capped for 4 up to 256 x 32;
#                                                        UNIFORM_ONLY=1: uniform keys only)
set -euo pipefail
cd "$(dirname "$0")/../../.."
work=$(mktemp -d)
read -r -a nvcc_flags <<<"${NVCC_FLAGS:-}"  # words, as on a command line
nvcc -std=c++17 -O3 -arch=sm_90 "${nvcc_flags[@]}" -I solutions/09_radix_sort -I chapters/09_radix_sort -I common/include \
  tests/gpu/tuning/ch09_onesweep_sweep.cu -o "$work/sweep"
"$work/sweep"
