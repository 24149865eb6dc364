#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a running `asys top`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
"$top/scripts/build.sh" build/plain
exec "$top/build/plain/asys" top "$@"
