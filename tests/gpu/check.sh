#!/usr/bin/env bash
# The GPU checks behind every GPU figure the book and the issues quote: build the gpu preset, run the
# whole test suite on the GPU, compute-sanitizer (memcheck, racecheck, synccheck) on every chapter's
# reference driver, Nsight Compute's shared-memory bank-conflict counters, and the benchmark.
#
#   tests/gpu/check.sh OUTDIR [SECTION...]     sections: build ctest sanitizer ncu bench extra grading tune sandbox
#   (extra: one-block timings of chapters 01-03; grading: configure, build only the grading
#   programs, run them, and compute-sanitizer memcheck on every chapter's solution runner driven by
#   its checker: the quick check after a change to a chapter's given kernels or its runner;
#   tune (with build): ./lab tune into OUTDIR/tuning.json, and chapters 07 and 11 reading it;
#   sandbox: ./lab grade --gpu of chapter 07 inside bubblewrap, the reference and the hostile
#   submissions, with a bwrap carried in where the machine has none: see the section)
#
# Logs go to OUTDIR; a summary line per check goes to stdout. Needs a visible GPU, nvcc, cmake,
# compute-sanitizer and ncu. Exit status: the number of failed checks (0 = all passed).
set -uo pipefail
out=${1:?usage: tests/gpu/check.sh OUTDIR [build ctest sanitizer ncu bench extra]}
shift
sections=${*:-build ctest sanitizer ncu bench}
mkdir -p "$out"
cd "$(dirname "$0")/../.." || exit 1
failures=0
bin=build/gpu/bin/gpu

note() { printf '%-60s %s\n' "$1" "$2"; }
check() {  # check NAME LOG COMMAND...: run, log, and print PASS/FAIL
  local name=$1 log=$2; shift 2
  if "$@" >"$log" 2>&1; then note "$name" "PASS"; else note "$name" "FAIL (see $(basename "$log"))"; failures=$((failures + 1)); fi
}
has() { [[ " $sections " == *" $1 "* ]]; }
# NN_slug per chapter, in order, from the chapter list chapters/chapters.json.
chapters() {
  python3 -c 'import json, sys
for c in json.load(open(sys.argv[1], encoding="utf-8"))["chapters"]:
    print(c["nn"] + "_" + c["slug"])' chapters/chapters.json
}

if has build; then
  nvidia-smi -L | tee "$out/device.txt"
  check "configure (gpu preset)" "$out/configure.log" cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90
  # -k 0: one target that fails to compile does not stop the others from being checked
  check "build (gpu preset)" "$out/build.log" cmake --build --preset gpu -j "$(nproc)" -- -k 0
fi

if has grading; then
  nvidia-smi -L | tee "$out/device.txt"
  check "configure (gpu preset)" "$out/configure.log" cmake --preset gpu -DCMAKE_CUDA_ARCHITECTURES=90
  targets=()
  for id in $(chapters); do
    targets+=("grade_${id}_checker" "grade_${id}_solution_runner_gpu" "grade_${id}_exercise_runner_gpu")
  done
  check "build the grading programs (gpu preset)" "$out/build_grading.log" \
    cmake --build --preset gpu -j "$(nproc)" --target "${targets[@]}"
  check "ctest --preset gpu -L ^grade$" "$out/ctest_grade.log" ctest --preset gpu -L "^grade$" --output-on-failure
  grep -E "tests passed|tests failed" "$out/ctest_grade.log" | tail -1
  # SCANLAB_CHECK_CHAPTERS (a regular expression, e.g. "^0[45]") limits the memcheck runs.
  for id in $(chapters | grep -E "${SCANLAB_CHECK_CHAPTERS:-.}"); do
    runner=$bin/grade_${id}_solution_runner
    [ -x "$runner" ] || { note "memcheck runner $id" "SKIP (not built)"; continue; }
    # The checker starts the runner with this command line: the sanitizer wraps every call and
    # writes its report (one per runner process) where this script reads it.
    rm -f "$out"/memcheck_runner_"$id".*.txt
    sanitizer="[\"compute-sanitizer\", \"--tool\", \"memcheck\", \"--log-file\", \"$out/memcheck_runner_$id.%p.txt\", \"$runner\"]"
    check "compute-sanitizer memcheck, runner $id via its checker" "$out/memcheck_runner_$id.log" \
      env SCANLAB_GRADE_RUNNER="$sanitizer" SCANLAB_GRADE_CALL_TIMEOUT=300 "build/gpu/bin/grade_${id}_checker"
    # The checker ends its runner with a signal, so a report has no closing summary: every line
    # of it but the banner is a finding (memcheck prints each error as it finds it).
    reports=$(find "$out" -maxdepth 1 -name "memcheck_runner_$id.*.txt" | wc -l)
    findings=$(cat "$out"/memcheck_runner_"$id".*.txt 2>/dev/null | grep -v "^========= COMPUTE-SANITIZER$" |
               grep -vc "^========= ERROR SUMMARY: 0 errors$")
    if [[ $reports -gt 0 && $findings -eq 0 ]]; then
      note "  memcheck reports of runner $id" "PASS ($reports runner processes, no finding)"
    else
      note "  memcheck reports of runner $id" "FAIL ($reports reports, $findings lines of findings)"
      failures=$((failures + 1))
    fi
  done
fi

if has ctest; then
  check "ctest --preset gpu" "$out/ctest.log" ctest --preset gpu --output-on-failure
  grep -E "tests passed|tests failed" "$out/ctest.log" | tail -1
fi

if has sanitizer; then
  for id in $(chapters); do
    exe=$bin/ch${id}_solution
    [ -x "$exe" ] || { note "sanitizer ch$id" "SKIP (not built)"; continue; }
    for tool in memcheck racecheck synccheck; do
      # racecheck of chapter 09's default run (2^24 key-value pairs) takes minutes on an H100; a
      # million keys and odd sizes exercise the same kernels.
      size=()
      [[ $tool == racecheck && $id == 09_* ]] && size=(-n 1000003)
      check "compute-sanitizer $tool ch$id" "$out/sanitizer_${tool}_ch$id.log" \
        compute-sanitizer --tool "$tool" --error-exitcode 99 "$exe" --repeat 1 "${size[@]}"
    done
  done
fi

if has ncu; then
  metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  check "ncu bank conflicts: stride 1, 2, 32" "$out/ncu_bank_strides.csv" \
    ncu --clock-control none --metrics "$metrics" --csv $bin/bank_strides 1 2 32
  if [ -x "$bin/ch02_blelloch_solution" ]; then
    check "ncu bank conflicts ch02 (one 2048-int tile)" "$out/ncu_ch02.csv" \
      ncu --clock-control none --metrics "$metrics" --csv -c 1 "$bin/ch02_blelloch_solution" --repeat 1
  fi
  if [ -x "$bin/ch03_bank_conflicts_solution" ]; then
    for layout in unpadded padded; do
      check "ncu bank conflicts ch03 $layout" "$out/ncu_ch03_$layout.csv" \
        ncu --clock-control none --metrics "$metrics" --csv -c 1 "$bin/ch03_bank_conflicts_solution" --layout $layout --repeat 1
    done
    if [ -x "$bin/sim_banks" ]; then
      check "ncu bank conflicts sim_banks (ch02, ch03 unpadded, padded)" "$out/ncu_sim_banks.csv" \
        ncu --clock-control none --metrics "$metrics" --csv "$bin/sim_banks"
    else
      note "ncu bank conflicts sim_banks" "SKIP (not built)"
    fi
  fi
  # Kernel, metric and value of each row. The logs hold the programs' own output too, before
  # ncu's CSV: only rows as wide as the CSV's header (the line naming "Metric Name") are read.
  python3 - "$out"/ncu_*.csv <<'PY' | head -40
import csv, sys
for path in sys.argv[1:]:
    header = None
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for row in csv.reader(f):
            if "Metric Name" in row and "Metric Value" in row:
                header = row
            elif header and len(row) == len(header):
                r = dict(zip(header, row))
                if "bank_conflicts" in r["Metric Name"] or "wavefronts" in r["Metric Name"]:
                    print(r.get("Kernel Name", "?"), r["Metric Name"], r["Metric Value"])
PY
fi

if has extra; then
  # The cross-backend program's GPU output: ctest compares the emulator's with tests/emu/same_output.expected.
  if [ -x "$bin/same_output" ]; then
    check "same_output on the GPU" "$out/same_output.gpu.txt" "$bin/same_output"
  fi
  # One block, as the scan article's table: Hillis-Steele (1024), Blelloch and padded Blelloch (2048).
  for cmd in "ch01_hillis_steele_solution -n 1024 -r 200" "ch02_blelloch_solution -n 2048 -r 200" \
             "ch03_bank_conflicts_solution -n 2048 -r 200 --layout unpadded" "ch03_bank_conflicts_solution -n 2048 -r 200 --layout padded"; do
    echo "== $cmd"
    read -r -a argv <<<"$cmd"  # the program, then its arguments
    "$bin/${argv[0]}" "${argv[@]:1}" 2>&1 | tail -n 4
  done | tee "$out/one_block.txt"
fi

if has tune; then
  # ./lab tune into OUTDIR (not the user's file), then chapters 07 and 11 reading it: each must say
  # what it took from the file and verify; a tuned shape other than the default, named by hand,
  # under compute-sanitizer.
  tuning=$out/tuning.json
  rm -f "$tuning"
  check "scanlab_bench --tune" "$out/tune.txt" $bin/scanlab_bench --tune --tune-file "$tuning"
  tail -n 20 "$out/tune.txt"
  for chapter in ch07_decoupled_lookback ch11_async_copy_scan; do
    check "$chapter reads the tuning file" "$out/tuned_$chapter.txt" \
      bash -c "SCANLAB_TUNING='$tuning' '$bin/${chapter}_solution' -n 16777219 | grep -q '^tuning: tile '"
  done
  for run in "ch07_decoupled_lookback --tile 256x16" "ch07_decoupled_lookback --tile 128x24 --type float" \
             "ch11_async_copy_scan --tile 128x16x8" "ch11_async_copy_scan --tile 128x32x2 --type float"; do
    read -r -a argv <<<"$run"
    check "compute-sanitizer memcheck ${run}" "$out/tuned_memcheck_${argv[0]}_${argv[2]}.txt" \
      compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/${argv[0]}_solution" "${argv[@]:1}" -n 1000003
  done
fi

if has sandbox; then
  # Chapter 07 graded with --gpu inside bubblewrap: the reference at full marks, chapter 07's hostile
  # submissions at zero or contained (tests/grader/hostile.py --gpu: no write outside the scratch
  # folder, no connection, no process left). A GPU machine without bubblewrap (and without a way
  # to install it) uses one carried in: tests/gpu/bwrap_bundle.sh, run where bubblewrap is
  # installed, makes build/bwrap-bundle (or $SCANLAB_BWRAP_BUNDLE), whose bin/ goes first on PATH.
  bundle=${SCANLAB_BWRAP_BUNDLE:-build/bwrap-bundle}
  if ! command -v bwrap >/dev/null 2>&1 && [ -x "$bundle/bin/bwrap" ]; then
    PATH="$(cd "$bundle/bin" && pwd):$PATH"
  fi
  note "bubblewrap: $(command -v bwrap || echo none)" "$(bwrap --version 2>&1 | head -n 1)"
  gpu_build=build/grade/gpu
  # What the GPU's sandbox shows of the machine: the devices, the driver's library, the toolkit.
  check "the GPU sandbox reaches /dev/nvidia*, libcuda and nvcc" "$out/sandbox_reach.log" \
    env PYTHONPATH=grader python3 - <<'PY'
import subprocess, sys
from pathlib import Path
from scanlab_grade import sandbox
try:
    box = sandbox.require(False, gpu=True)
except sandbox.Refused as e:
    print(e)
    sys.exit(1)
print("sandbox:", "made by root, the submission's own user inside" if box.privileged else "in a user namespace")
# Required: the devices, libcuda in the loader's cache, nvcc; shown besides: nvidia-smi and /.
script = ("id && ls -d /dev/nvidia* && /sbin/ldconfig -p | grep -E 'libcuda[.]so' && ls -d /usr/local/cuda* "
          "&& nvcc --version | tail -n 2; ok=$?; echo 'nvidia-smi -L (shown, not required):'; nvidia-smi -L; "
          "echo '/ holds:'; ls /; exit $ok")
argv = box.wrap(["/bin/sh", "-c", script], read_only=[], writable=[], chdir=Path("/"),
                env={"PATH": "/usr/local/cuda/bin:/usr/bin:/bin"}, limits=sandbox.RUN_LIMITS)
sys.exit(subprocess.run(argv).returncode)
PY
  sed 's/^/    /' "$out/sandbox_reach.log"
  check "grade ch07 --gpu in the sandbox: the reference" "$out/sandbox_reference.log" \
    env SCANLAB_NO_INSTALL=1 ./lab grade --gpu --chapters 07 --exercises solutions --build-dir "$gpu_build" \
    --report json --out "$out/sandbox_reference.json"
  check "  the reference: full marks, sandbox on" "$out/sandbox_reference_score.log" \
    python3 - "$out/sandbox_reference.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
score = sum(c["score"] for c in r["chapters"])
points = sum(c["points"] for c in r["chapters"])
print(f"sandbox: {r['sandbox']}; {score} / {points}")
sys.exit(0 if r["sandbox"] == "on" and score == points > 0 else 1)
PY
  cat "$out/sandbox_reference_score.log"
  attacks=$(find tests/grader/hostile -name 'ch07_*.attack' -printf '%f\n' | sed 's/\.attack$//' | sort | paste -sd, -)
  mkdir -p "$out/hostile-gpu"
  check "hostile ch07 --gpu in the sandbox: zero or contained" "$out/sandbox_hostile.log" \
    python3 tests/grader/hostile.py --gpu --work "$out/hostile-gpu" --build-dir "$gpu_build" --only "$attacks"
  grep -E "^(ok|FAIL) " "$out/sandbox_hostile.log" | sed 's/^/    /'
fi

if has bench; then
  read -r -a bench_args <<<"${SCANLAB_BENCH_ARGS:-}"  # words, as on a command line
  check "scanlab_bench" "$out/bench.txt" $bin/scanlab_bench --csv "$out/bench.csv" --json "$out/bench.json" \
    "${bench_args[@]}"
  tail -n 40 "$out/bench.txt"
fi

echo "failed checks: $failures"
exit "$failures"
