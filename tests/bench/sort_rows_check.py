"""The bench's sort rows, as `scanlab_bench --list` names them (no GPU needed): each sort has a row
on uniform keys and a twin ending _narrow on the narrow input; CUB's counterpart of each is there
with an int and a size_t item count; and each chapter 09 row is compared with the faster of the two
counterparts of its own input; the same for the uint64 rows (Onesweep's keys and pairs against
CUB's with both item counts). Exit 0 when so, 1 with what is missing.

    python3 sort_rows_check.py build/cpu/bin/gpu/scanlab_bench
"""

import sys

from bench_listing import main

CH09 = {"ch09_radix_sort_keys": "keys", "ch09_radix_sort_pairs": "pairs", "ch09_onesweep_sort_keys": "keys",
        "ch09_onesweep_sort_pairs": "pairs", "ch09_radix_sort_split": "keys"}


def problems(rows: dict[str, str]) -> list[str]:
    wrong = []
    for sfx, keys in (("", "uniform over all 32 bits"), ("_narrow", "[-100, 100]")):
        for kind in ("keys", "pairs"):
            for count in ("int", "size_t"):
                cub = f"cub_radix_sort_{kind}_{count}{sfx}"
                if cub not in rows:
                    wrong.append(f"no row {cub}")
                elif f"num_items as {count}" not in rows[cub] or keys not in rows[cub]:
                    wrong.append(f"{cub} does not say its item count ({count}) and its keys ({keys}): {rows[cub]}")
        for base, kind in CH09.items():
            name = base + sfx
            want = f"x CUB against the faster of cub_radix_sort_{kind}_int{sfx}, cub_radix_sort_{kind}_size_t{sfx}"
            if name not in rows:
                wrong.append(f"no row {name}")
            elif keys not in rows[name] or not rows[name].endswith(want):
                wrong.append(f"{name} should say its keys ({keys}) and end '{want}': {rows[name]}")
    # The uint64 rows (bench/rows_sort_u64.cuh): CUB with both item counts, each Onesweep row against
    # the faster of its two, all on keys uniform over all 64 bits, counting 8 bytes a key.
    for kind in ("keys", "pairs"):
        for count in ("int", "size_t"):
            cub = f"cub_radix_sort_{kind}_u64_{count}"
            if cub not in rows:
                wrong.append(f"no row {cub}")
            elif f"num_items as {count}" not in rows[cub] or "uniform over all 64 bits" not in rows[cub]:
                wrong.append(f"{cub} does not say its item count ({count}) and its keys (all 64 bits): {rows[cub]}")
        name = f"ch09_onesweep_{kind}_u64"
        want = f"x CUB against the faster of cub_radix_sort_{kind}_u64_int, cub_radix_sort_{kind}_u64_size_t"
        if name not in rows:
            wrong.append(f"no row {name}")
        elif "uniform over all 64 bits" not in rows[name] or "8 bytes a key" not in rows[name] \
                or not rows[name].endswith(want):
            wrong.append(f"{name} should say its keys (all 64 bits), its bytes (8 a key) and end '{want}': "
                         f"{rows[name]}")
    return wrong


if __name__ == "__main__":
    sys.exit(main(__doc__, "sort rows", problems))
