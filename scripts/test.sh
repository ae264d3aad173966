#!/usr/bin/env bash
# Installs what is missing, then runs every test: the macro tests, the SQL layer tests and the
# driver conformance suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
swift test "$@"
