#!/usr/bin/env bash
# Chapter 10's single-pass tuning sweep on a GPU: builds ch10_segmented_sweep.cu once per variant,
# each from a copy of the chapter's given kernel with one constant changed, and prints both of the
# segmented scan's kernels (registers, staged) against CUB's InclusiveSumByKey (mean segment
# lengths 1 to 10^6, int32 and float, 2^20..2^28). The book's chapter 10 "Measured" section cites
# its output.
#
#   tests/gpu/tuning/ch10_segmented_sweep.sh [I,M,F,E ...]  items per thread, min blocks per SM, poll
#                                                           schedule (first_ns, every_ns); e.g. 32,6,2000,500
#   NVCC_FLAGS=-DQUICK ...                                   2^24 and 2^28, two segment lengths only
#   NVCC_FLAGS=-DSMALL ...                                   2^20..2^25, mean length 32 (where the host
#                                                           picks between its two kernels)
set -euo pipefail
cd "$(dirname "$0")/../../.."
work=$(mktemp -d)
dp=chapters/10_segmented_scan/segmented_scan_dispatch.cuh
read -r -a nvcc_flags <<<"${NVCC_FLAGS:-}"  # words, as on a command line
build() {  # build NAME: compile the sweep program against $work/NAME (searched first)
  nvcc -std=c++17 -O3 -arch=sm_90 "${nvcc_flags[@]}" -DCONFIG="\"$1\"" -I "$work/$1" -I solutions/10_segmented_scan \
    -I chapters/10_segmented_scan -I common/include tests/gpu/tuning/ch10_segmented_sweep.cu -o "$work/$1/sweep"
}
replace() {  # replace FILE OLD NEW OUT: OUT is FILE with the line OLD replaced (it must be there)
  grep -qF "$2" "$1" || { echo "not found in $1: $2" >&2; exit 1; }
  sed "s|$2|$3|" "$1" >"$4"
}
names=()
policy="Policy<128, 32, single_pass::Descriptors::automatic, single_pass::Lookback::warp, 6>;"
variants=("$@")
[[ $# -gt 0 ]] || variants=("32,6,2000,500" "16,8,2000,500")
for v in "${variants[@]}"; do
  IFS=, read -r i m f e <<<"$v"; name="128x${i}_min${m}_polls_${f}_${e}"; mkdir -p "$work/$name"
  replace $dp "$policy" "Policy<128, $i, single_pass::Descriptors::automatic, single_pass::Lookback::warp, $m>;" "$work/$name/a"
  replace "$work/$name/a" "kSegmentedPolls = {2000, 500};" "kSegmentedPolls = {$f, $e};" \
    "$work/$name/segmented_scan_dispatch.cuh"
  names+=("$name")
done
for name in "${names[@]}"; do build "$name" & done
wait
for name in "${names[@]}"; do "$work/$name/sweep"; done
