#!/usr/bin/env bash
# The main job: installs what is missing, then tours models, queries and transactions on the
# embedded SQLite default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
swift run shark-tour "$@"
