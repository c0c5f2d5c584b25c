#!/usr/bin/env bash
# Builds tablegate-dagster's platform wheel (linux x86_64): the tablegate binary built from this
# checkout goes into the package, so `pip install` needs no Go. Usage: build_wheel.sh [WHEEL_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$(mkdir -p "${1:-$here/dist}" && cd "${1:-$here/dist}" && pwd)
bin="$here/src/tablegate_dagster/bin"
trap 'rm -rf "$bin" "$here/build" "$here"/src/*.egg-info' EXIT
mkdir -p "$bin"
(cd "$repo" && CGO_ENABLED=1 go build -trimpath -ldflags="-s -w" -o "$bin/tablegate" ./cmd/tablegate)
python3 -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$out" "$here"
ls "$out"/tablegate_dagster-*.whl
