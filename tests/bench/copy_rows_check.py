"""The bench's copy kernels, as `scanlab_bench --list` names them (no GPU needed): copy_registers and
copy_staged are there beside copy, each saying it copies chapter 11's default tile and how it moves
it, and copy_staged saying where it falls back to registers. Exit 0 when so, 1 with what is missing.
(That their tile is chapter 11's is a static_assert in bench/rows_ch11.cu.)

    python3 copy_rows_check.py build/cpu/bin/gpu/scanlab_bench
"""

import sys

from bench_listing import main

WANT = {
    "copy": ["device-to-device"],
    "copy_registers": ["copy kernel", "128 threads x 16 items x 4 chunks", "registers", "16-byte"],
    "copy_staged": ["copy kernel", "128 x 16 x 4", "bulk copies", "memcpy_async_tx", "partial last tile",
                    "before sm_90"],
}


def problems(rows: dict[str, str]) -> list[str]:
    wrong = []
    for name, words in WANT.items():
        if name not in rows:
            wrong.append(f"no row {name}")
            continue
        for w in words:
            if w not in rows[name]:
                wrong.append(f"{name} should say '{w}': {rows[name]}")
    return wrong


if __name__ == "__main__":
    sys.exit(main(__doc__, "copy rows", problems))
