"""The bench's copy kernels, as `scanlab_bench --list` names them (no GPU needed): copy_registers and
copy_staged are there beside copy, each saying it copies chapter 11's default tile and how it moves
it, and copy_staged saying where it falls back to registers. Exit 0 when so, 1 with what is missing.
(That their tile is chapter 11's is a static_assert in bench/rows_ch11.cu.)

    python3 copy_rows_check.py build/cpu/bin/gpu/scanlab_bench
"""

import subprocess
import sys

WANT = {
    "copy": ["device-to-device"],
    "copy_registers": ["copy kernel", "128 threads x 16 items x 4 chunks", "registers", "16-byte"],
    "copy_staged": ["copy kernel", "128 x 16 x 4", "bulk copies", "memcpy_async_tx", "partial last tile",
                    "before sm_90"],
}


def problems(listing: str) -> list[str]:
    rows = {}
    for line in listing.splitlines():
        name, _, what = line.partition(" ")
        rows[name] = what.strip()
    wrong = []
    for name, words in WANT.items():
        if name not in rows:
            wrong.append(f"no row {name}")
            continue
        for w in words:
            if w not in rows[name]:
                wrong.append(f"{name} should say '{w}': {rows[name]}")
    return wrong


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    done = subprocess.run([sys.argv[1], "--list"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print(f"{sys.argv[1]} --list failed ({done.returncode}): {done.stderr.strip()}")
        return 1
    wrong = problems(done.stdout)
    for w in wrong:
        print(w)
    print(f"copy rows: {len(wrong)} problem(s)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
