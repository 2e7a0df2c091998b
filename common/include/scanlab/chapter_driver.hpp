// scanlab/chapter_driver.hpp: what the chapter drivers (chapters/NN_slug/main.cu) have in common,
// the one header they include. Each driver builds an input, runs its chapter's scan into a poisoned
// output, checks it against the oracle, prints one verdict line, times the scan on a GPU and writes
// a JSON report. The pieces of that which do not depend on the chapter live in scanlab/driver/, one
// header per concern, so that a driver's main.cu shows only what its chapter adds. Host code only.
// None of them includes CLI11 or nlohmann-json: the scanlab_driver library compiles those once
// (scanlab/command_line.hpp and scanlab/json.hpp say why).
//
//   scanlab/command_line.hpp          the shared options (-n, --seed, ...), parsing, usage errors
//   scanlab/driver/scan_options.hpp   --inclusive/--exclusive, --type/--op, --order
//   scanlab/driver/names.hpp          "100000 elements, inclusive sum, int32"
//   scanlab/driver/checking.hpp       upload, run, download; verify against the oracle; the verdict
//   scanlab/driver/report.hpp         timing, the bandwidth line, the JSON report (scanlab/json.hpp)
//   scanlab/driver/single_pass_run.hpp  chapters 06 and 07: deadlock verdicts, --schedules sweeps
//
//   const std::vector<T> got = scanlab::upload_run_download(in, d_in, d_out, in_place, launch);
//   const scanlab::VerifyResult check = scanlab::verify_scan(in, got, kind, op);
//   std::cout << scanlab::verdict_line(check, scanlab::describe_scan<T, Op>(n, kind)) << "\n";
#pragma once

#include "scanlab/command_line.hpp"
#include "scanlab/device_info.hpp"
#include "scanlab/driver/checking.hpp"
#include "scanlab/driver/names.hpp"
#include "scanlab/driver/report.hpp"
#include "scanlab/driver/scan_options.hpp"
#include "scanlab/driver/single_pass_run.hpp"
