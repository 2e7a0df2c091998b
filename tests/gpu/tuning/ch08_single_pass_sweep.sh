#!/usr/bin/env bash
# Chapter 08's single-pass tuning sweep on a GPU: builds ch08_single_pass_sweep.cu once per tile
# shape (threads, items, min blocks per SM; one shape for select-if and partition-if alike) or per
# poll schedule (first_ns, every_ns), each from a copy of the chapter's given kernel and launch with
# that one constant changed, and prints select-if and partition-if against CUB at 2^20..2^28 int32
# (about half kept). The book's chapter 08 "Measured" section cites its output
# (book/docs/measurements/h100-2026-11-25/sweep_ch08_single_pass.txt, and for the H200
# book/docs/measurements/h200-2026-11-26/ch08_ch10_policies/sweep08_*.txt).
#
#   tests/gpu/tuning/ch08_single_pass_sweep.sh shapes [T,I,M ...]     e.g. 128,32,6 256,16,3
#   tests/gpu/tuning/ch08_single_pass_sweep.sh polls  [F,E ...]       e.g. 2000,500 2800,900 (both algorithms)
#   tests/gpu/tuning/ch08_single_pass_sweep.sh two_tile_polls [F,E ...]   the two-tile kernel's (compact_two_tile.cuh)
#   tests/gpu/tuning/ch08_single_pass_sweep.sh one_tile_ranks   the one-tile kernel's run places from the ballots
#                                                               (given) against the packed scan of the two-tile kernel
#   tests/gpu/tuning/ch08_single_pass_sweep.sh two_tile_from [N ...]  the given kernels with the two-tile kernel
#                                                               from N elements on (default: 0, the chapter's, never),
#                                                               half and a tenth kept
set -euo pipefail
cd "$(dirname "$0")/../../.."
kind=${1:?usage: ch08_single_pass_sweep.sh shapes|polls|two_tile_polls|one_tile_ranks|two_tile_from [values...]}
shift
work=$(mktemp -d)
dp=chapters/08_stream_compaction/stream_compaction_single_pass_dispatch.cuh
tt=chapters/08_stream_compaction/compact_two_tile.cuh
build() {  # build NAME: compile the sweep program against $work/NAME (searched first)
  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -DCONFIG="\"$1\"" -I "$work/$1" -I solutions/08_stream_compaction \
    -I chapters/08_stream_compaction -I common/include tests/gpu/tuning/ch08_single_pass_sweep.cu -o "$work/$1/sweep"
}
replace() {  # replace FILE OLD NEW OUT: OUT is FILE with the line OLD replaced (it must be there)
  grep -qF "$2" "$1" || { echo "not found in $1: $2" >&2; exit 1; }
  sed "s|$2|$3|" "$1" >"$4"
}
names=()
if [[ $kind == shapes ]]; then
  for c in "${@:-128,32,6 128,16,8 256,16,3 256,32,2 128,24,6 64,32,12}"; do
    for v in $c; do
      IFS=, read -r t i m <<<"$v"; name="${t}x${i}_min$m"; mkdir -p "$work/$name"
      # the same shape for both kernels
      replace $dp "SelectPolicy = single_pass::Policy<128, 32, single_pass::Descriptors::fused, single_pass::Lookback::warp, 6>;" \
        "SelectPolicy = single_pass::Policy<$t, $i, single_pass::Descriptors::fused, single_pass::Lookback::warp, $m>;" \
        "$work/$name/a"
      replace "$work/$name/a" "PartitionPolicy = single_pass::Policy<128, 24, single_pass::Descriptors::fused, single_pass::Lookback::warp, 8>;" \
        "PartitionPolicy = single_pass::Policy<$t, $i, single_pass::Descriptors::fused, single_pass::Lookback::warp, $m>;" \
        "$work/$name/stream_compaction_single_pass_dispatch.cuh"
      names+=("$name")
    done
  done
elif [[ $kind == one_tile_ranks ]]; then
  for name in one_tile_ballots one_tile_packed; do
    mkdir -p "$work/$name"
    names+=("$name")
  done
  cp $dp "$work/one_tile_ballots/"
  replace $dp "const unsigned warp_count = warp_run_places<Shape>(kept, run_place);" \
    "const unsigned warp_count = warp_run_places_packed<Shape>(kept, run_place);" \
    "$work/one_tile_packed/stream_compaction_single_pass_dispatch.cuh"
elif [[ $kind == two_tile_from ]]; then
  mkdir -p "$work/given"
  build given
  for keep in 0 80; do
    for c in "${@:-0 given 4294967296}"; do
      for from in $c; do
        if [[ $from == given ]]; then SWEEP_KEEP_ABOVE=$keep "$work/given/sweep"
        else SWEEP_KEEP_ABOVE=$keep SWEEP_TWO_TILE_FROM=$from "$work/given/sweep"; fi
      done
    done
  done
  exit 0
elif [[ $kind == two_tile_polls ]]; then
  for c in "${@:-1400,900 700,400 2800,900 0,300}"; do
    for v in $c; do
      IFS=, read -r f e <<<"$v"; name="two_tile_polls_${f}_$e"; mkdir -p "$work/$name"
      # the dispatch beside the changed file, so that its #include "compact_two_tile.cuh" finds that one
      cp $dp "$work/$name/"
      replace $tt "kPolls = {1400, 900};" "kPolls = {$f, $e};" "$work/$name/compact_two_tile.cuh"
      names+=("$name")
    done
  done
else
  for c in "${@:-2000,500 2800,900 0,900 0,200 1000,500 1500,300 3000,300 4000,900}"; do
    for v in $c; do
      IFS=, read -r f e <<<"$v"; name="polls_${f}_$e"; mkdir -p "$work/$name"
      replace $dp "kSelectPolls = {2000, 500};" "kSelectPolls = {$f, $e};" "$work/$name/a"
      replace "$work/$name/a" "kPartitionPolls = {2800, 900};" "kPartitionPolls = {$f, $e};" \
        "$work/$name/stream_compaction_single_pass_dispatch.cuh"
      names+=("$name")
    done
  done
fi
for name in "${names[@]}"; do build "$name" & done
wait
for name in "${names[@]}"; do "$work/$name/sweep"; done
