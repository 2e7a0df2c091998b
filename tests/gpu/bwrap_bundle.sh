#!/usr/bin/env bash
# Carries this machine's bubblewrap to one that has none and cannot install packages (the GPU
# machines): copies bwrap and the shared libraries it links (all but the C library and the
# loader, which every Linux has) into DIR, with DIR/bin/bwrap a wrapper that starts it with them.
# On the other machine, put DIR/bin first on PATH (tests/gpu/check.sh's sandbox section does).
#
#   tests/gpu/bwrap_bundle.sh DIR        (default DIR: build/bwrap-bundle)
#
# The wrapper runs bwrap through that machine's dynamic loader with --library-path, so no
# LD_LIBRARY_PATH is set for anything bwrap starts. A bwrap built against an older glibc (Debian
# 12's 2.36) runs with a newer one (Ubuntu 24.04's 2.39), not the other way round.
set -euo pipefail
dir=${1:-build/bwrap-bundle}
bwrap=$(command -v bwrap) || { echo "bwrap_bundle.sh: no bwrap here (Debian package bubblewrap)" >&2; exit 1; }
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/lib" "$dir/libexec"
cp -L "$bwrap" "$dir/libexec/bwrap"
# ldd's lines: "libcap.so.2 => /lib/x86_64-linux-gnu/libcap.so.2 (0x...)"; the loader's and the
# vDSO's have no "=>" path to copy.
ldd "$bwrap" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r name path; do
  case "$name" in
    libc.so.* | ld-linux*) ;;
    *) cp -L "$path" "$dir/lib/$name" ;;
  esac
done
cat >"$dir/bin/bwrap" <<'EOF'
#!/bin/sh
# bubblewrap carried from another machine (tests/gpu/bwrap_bundle.sh): its own libraries, this
# machine's C library and loader.
here=$(dirname "$(dirname "$(readlink -f "$0")")")
for loader in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
  [ -x "$loader" ] && exec "$loader" --library-path "$here/lib" "$here/libexec/bwrap" "$@"
done
echo "bwrap (carried): no dynamic loader found" >&2
exit 127
EOF
chmod -R a+rX "$dir"
chmod 755 "$dir/bin/bwrap" "$dir/libexec/bwrap"
"$dir/bin/bwrap" --version
ls "$dir/lib"
