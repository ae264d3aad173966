#!/usr/bin/env bash
# The main job: installs what is missing, builds what it runs (debug: nothing here measures),
# then shows SharkORM at work in under a minute: the tour (models, queries, transactions, live
# queries on SQLite; the same models on SQLCipher and in memory; sync among the three
# drivers) and the shark command line on the databases the tour left. The benchmark is its
# own command: scripts/bench.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

echo "== building the tour and the shark command line"
built=$(date +%s)
swift build --product shark-tour
swift build --product shark
echo "Built in $(($(date +%s) - built)) s."

started=$(date +%s)
.build/debug/shark-tour "$@"

temporary=${TMPDIR:-/tmp}
temporary=${temporary%/}
echo
echo "== the shark command line on the tour's databases (no model types needed)"
echo "\$ shark info $temporary/shark-tour.sqlite"
.build/debug/shark info "$temporary/shark-tour.sqlite"
echo
echo "\$ shark query $temporary/shark-tour.sqlite Person --where \"age >= ?\" 40 --order \"age DESC\""
.build/debug/shark query "$temporary/shark-tour.sqlite" Person --where "age >= ?" 40 --order "age DESC"
echo
echo "\$ SHARK_KEY=… shark query $temporary/shark-tour-tablet.sqlite Postcard --format csv"
SHARK_KEY="tour secret" .build/debug/shark query "$temporary/shark-tour-tablet.sqlite" Postcard --format csv

echo
echo "Done in $(($(date +%s) - started)) s after the build. Next: bash scripts/test.sh (every test),"
echo "bash scripts/bench.sh (the drivers against the raw SQLite C API and GRDB)."
