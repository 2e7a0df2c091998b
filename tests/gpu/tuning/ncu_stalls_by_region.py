#!/usr/bin/env python3
"""Stall samples of one kernel by region, from Nsight Compute's source page.

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > source.csv
    tests/gpu/tuning/ncu_stalls_by_region.py source.csv

A region ends at each block barrier (BAR.SYNC), so the regions of a two-tile kernel's loop are its
phases: before the loop's first barrier, between it and the barrier after the look-back, and the
stores after that. For each region: its share of the stall samples and of the warp instructions
executed, and its largest stall reasons; then the instructions with the most samples.
"""

import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        sys.exit(f"ncu_stalls_by_region: cannot read {path}: {e.strerror}")
    header_at = next((i for i, r in enumerate(rows) if "Warp Stall Sampling (All Samples)" in r), None)
    if header_at is None:
        sys.exit(f"ncu_stalls_by_region: {path} is not a source page CSV (no 'Warp Stall Sampling' column)")
    header = rows[header_at]
    col = {h: i for i, h in enumerate(header)}
    data = [r for r in rows[header_at + 1 :] if len(r) >= len(header)]
    samples_col, executed_col = col["Warp Stall Sampling (All Samples)"], col["Instructions Executed"]
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    total_samples = sum(number(r[samples_col]) for r in data) or 1.0
    total_executed = sum(number(r[executed_col]) for r in data) or 1.0

    regions, current = [], {"first": None, "samples": 0.0, "executed": 0.0, "reasons": dict.fromkeys(reasons, 0.0)}
    for r in data:
        current["first"] = current["first"] or r[col["Address"]]
        current["samples"] += number(r[samples_col])
        current["executed"] += number(r[executed_col])
        for h in reasons:
            current["reasons"][h] += number(r[col[h]])
        if "BAR.SYNC" in r[col["Source"]]:
            regions.append(current)
            current = {"first": None, "samples": 0.0, "executed": 0.0, "reasons": dict.fromkeys(reasons, 0.0)}
    regions.append(current)
    print(f"{int(total_samples)} stall samples, {int(total_executed)} warp instructions executed")
    print("region from       samples  instructions  largest stall reasons (share of the region's samples)")
    for g in regions:
        if g["samples"] == 0 and g["executed"] == 0:
            continue
        top = sorted(g["reasons"].items(), key=lambda kv: -kv[1])[:5]
        share = " ".join(f"{h[6:]} {100 * v / (g['samples'] or 1):.0f}%" for h, v in top)
        samples, executed = 100 * g["samples"] / total_samples, 100 * g["executed"] / total_executed
        print(f"{g['first'][-6:]:>12} {samples:8.1f}% {executed:12.1f}%  {share}")
    print("\nthe 15 instructions with the most samples")
    for r in sorted(data, key=lambda r: -number(r[samples_col]))[:15]:
        top = max(reasons, key=lambda h: number(r[col[h]]))
        print(
            f"{r[col['Address']][-6:]:>12} {100 * number(r[samples_col]) / total_samples:5.1f}%  "
            f"{r[col['Source']].strip()[:60]:60s} {top[6:]}"
        )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: ncu_stalls_by_region.py SOURCE_PAGE.csv")
    main(sys.argv[1])
