#!/usr/bin/env bash
# Installs what is missing, then runs every test: the macro tests, the SQL layer tests, the
# driver conformance suite, and the `shark` command line run as a subprocess (built first, so
# its tests find the binary beside them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
swift build --product shark
swift test "$@"
