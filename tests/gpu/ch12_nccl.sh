#!/usr/bin/env bash
# Chapter 12 on a GPU machine: configure the gpu preset with NCCL (from pip's nvidia-nccl-cu13 wheel,
# or the CUDA Toolkit's), build chapter 12 and chapter 07, run chapter 12 with every rank count the
# machine's GPUs allow (one rank per GPU; NCCL refuses two ranks on one GPU) at 2^30 and 2^31 + 5
# elements, in place, int32 and float and affine maps, both forms; compute-sanitizer memcheck on a
# smaller run; and time chapter 12 on one GPU against chapter 07 (the same single-pass scan without
# the exchange) and, with several GPUs, each rank count against one.
#
#   tests/gpu/ch12_nccl.sh OUTDIR
#   SCANLAB_NCCL_ROOT=/path/to/site-packages/nvidia/nccl tests/gpu/ch12_nccl.sh OUTDIR
#   SCANLAB_CH12_SIZES="2^28 2^30 2^32" tests/gpu/ch12_nccl.sh OUTDIR     (timed sizes)
#   SCANLAB_CH12_CHECK_SIZES="2^30 2^33+5" tests/gpu/ch12_nccl.sh OUTDIR  (verified sizes, in place)
#
# Logs go to OUTDIR; one summary line per check goes to stdout, and OUTDIR/timing.txt holds the
# timing table. Needs a visible GPU, nvcc 13, cmake, python3 and compute-sanitizer. Leaves NVLink
# multicast off (NCCL_NVLS_ENABLE=0). Exit status: the number of failed checks.
set -uo pipefail
out=${1:?usage: tests/gpu/ch12_nccl.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/../.." || exit 1
export NCCL_NVLS_ENABLE=0
failures=0
bin=build/gpu/bin/gpu

note() { printf '%-64s %s\n' "$1" "$2"; }
check() {  # check NAME LOG COMMAND...: run, log, and print PASS/FAIL
  local name=$1 log=$2; shift 2
  if "$@" >"$log" 2>&1; then note "$name" "PASS"; else note "$name" "FAIL (see $(basename "$log"))"; failures=$((failures + 1)); fi
}

# count 2^31+5 -> 2147483653
count() { python3 -c 'import sys; print(eval(sys.argv[1].replace("^", "**"), {"__builtins__": {}}))' "$1"; }

nvidia-smi -L | tee "$out/device.txt"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
nvcc --version | tail -n 2 >>"$out/device.txt"

# NCCL: SCANLAB_NCCL_ROOT if set, else the wheel that python3 imports, else the CUDA Toolkit's.
nccl_root=${SCANLAB_NCCL_ROOT:-}
if [[ -z "$nccl_root" ]]; then
  nccl_root=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
fi
echo "NCCL root: ${nccl_root:-(that of the CUDA Toolkit)}" | tee -a "$out/device.txt"
[[ -n "$nccl_root" ]] && ls "$nccl_root"/include "$nccl_root"/lib >>"$out/device.txt" 2>&1

check "configure (gpu preset, NCCL)" "$out/configure.log" \
  cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90 ${nccl_root:+-DSCANLAB_NCCL_ROOT="$nccl_root"}
grep -E "Chapter 12" "$out/configure.log"
if ! grep -q "Chapter 12: NCCL" "$out/configure.log"; then
  note "NCCL found by CMake" "FAIL (chapter 12's GPU driver would only say it has no NCCL)"
  failures=$((failures + 1))
fi
check "build ch12 (solution, exercise, grading) and ch07" "$out/build.log" \
  cmake --build --preset gpu -j "$(nproc)" --target ch12_multi_gpu_scan_solution_gpu ch12_multi_gpu_scan_gpu \
  ch07_decoupled_lookback_solution_gpu grade_12_multi_gpu_scan_checker grade_12_multi_gpu_scan_solution_runner_gpu \
  grade_12_multi_gpu_scan_exercise_runner_gpu
ch12=$bin/ch12_multi_gpu_scan_solution
ch07=$bin/ch07_decoupled_lookback_solution

# Correctness: every rank count this machine has (3 too: slices that are not a power of two), the
# sizes asked for, in place (2^31 + 5 int32 is 8.6 GB per rank at one rank, 2^33 + 5 is 34 GB), and
# the other element types and the other form at 2^30.
ranks_list="1"
for k in 2 3 4 8; do [[ $k -le $gpus ]] && ranks_list+=" $k"; done
for k in $ranks_list; do
  for n in ${SCANLAB_CH12_CHECK_SIZES:-2^30 2^31+5}; do
    nn=$(count "$n")
    check "ch12 $k rank(s), n = $n, int32 exclusive, in place" "$out/run_${k}_${nn}.log" \
      "$ch12" --ranks "$k" -n "$nn" --in-place --repeat 5
  done
  check "ch12 $k rank(s), 2^30, float inclusive" "$out/run_${k}_float.log" "$ch12" --ranks "$k" -n 2^30 --type float --inclusive
  check "ch12 $k rank(s), 2^30, affine, scan-then-add" "$out/run_${k}_affine.log" \
    "$ch12" --ranks "$k" -n 2^30 --op affine --form scan-then-add
done
grep -h "^verified\|^FAILED\|^median" "$out"/run_*.log | sort | uniq -c | head -40

# compute-sanitizer memcheck, one rank (a forked process per rank: --target-processes all).
# --report-api-errors no: NCCL's initialisation probes its kernels with cudaFuncGetAttributes and
# handles the cudaErrorNoKernelImageForDevice it gets for other architectures' kernels; memcheck
# would report those 8 calls (seen on an H100 with the nvidia-nccl-cu13 wheel, NCCL 2.28.9) as
# errors. Memory errors are still reported.
check "compute-sanitizer memcheck ch12, 1 rank, 2^22 + 3" "$out/memcheck_1.log" \
  compute-sanitizer --tool memcheck --report-api-errors no --target-processes all --error-exitcode 99 "$ch12" --ranks 1 -n 4194307 --repeat 1
check "compute-sanitizer memcheck ch12, 1 rank, scan-then-add, affine" "$out/memcheck_1_affine.log" \
  compute-sanitizer --tool memcheck --report-api-errors no --target-processes all --error-exitcode 99 "$ch12" --ranks 1 -n 4194307 \
  --op affine --form scan-then-add --repeat 1
if [[ $gpus -ge 2 ]]; then
  check "compute-sanitizer memcheck ch12, 2 ranks, 2^22 + 3" "$out/memcheck_2.log" \
    compute-sanitizer --tool memcheck --report-api-errors no --target-processes all --error-exitcode 99 "$ch12" --ranks 2 -n 4194307 --repeat 1
fi

# The grading tests on the GPU (the runner's ranks are threads on one GPU there).
check "grading: solution passes" "$out/grade_solution.log" \
  env SCANLAB_GRADE_RUNNER="$bin/grade_12_multi_gpu_scan_solution_runner" build/gpu/bin/grade_12_multi_gpu_scan_checker
SCANLAB_GRADE_RUNNER="$bin/grade_12_multi_gpu_scan_exercise_runner" build/gpu/bin/grade_12_multi_gpu_scan_checker \
  >"$out/grade_exercise.log" 2>&1
if grep -qE "test cases: *[1-9][0-9]* \| *0 passed" "$out/grade_exercise.log"; then
  note "grading: the untouched exercise passes no test case" "PASS"
else
  note "grading: the untouched exercise passes no test case" "FAIL (see grade_exercise.log)"
  failures=$((failures + 1))
fi

# Timing: medians of 20 runs (exchange included; ch12's time is the slowest rank's), int32
# exclusive sums, in place. One GPU: ch12 (one rank) against ch07; then every rank count.
sizes=${SCANLAB_CH12_SIZES:-"2^28 2^30 2^31"}
{
  printf '%-10s %-28s %12s %12s\n' "n" "run" "median ms" "GB/s"
  for n in $sizes; do
    nn=$(count "$n")
    line=$("$ch07" -n "$nn" --in-place --repeat 20 2>&1 | grep '^median')
    printf '%-10s %-28s %12s %12s\n' "$n" "ch07 (one GPU)" "$(awk '{print $2}' <<<"$line")" "$(awk '{print $7}' <<<"$line")"
    for k in $ranks_list; do
      for form in fused scan-then-add; do
        run=$("$ch12" --ranks "$k" -n "$nn" --in-place --form "$form" --repeat 20 -q 2>&1)
        line=$(grep '^median' <<<"$run")
        printf '%-10s %-28s %12s %12s\n' "$n" "ch12 $k rank(s), $form" "$(awk '{print $2}' <<<"$line")" \
          "$(awk '{print $7}' <<<"$line")"
        grep '^steps' <<<"$run" | sed 's/^/           /'  # where the time goes: reduce, allgather, ...
      done
    done
  done
} | tee "$out/timing.txt"

echo "failed checks: $failures"
exit "$failures"
