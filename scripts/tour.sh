#!/usr/bin/env bash
# The main job: installs what is missing, builds, then shows SharkORM at work in under a
# minute: the tour (models, queries, transactions, live queries on SQLite; the same models on
# SQLCipher and in memory; sync among the three drivers), the shark command line on the
# databases the tour left, and a quick shark-bench run that draws its chart.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

echo "== building the tour and the shark command line"
swift build --product shark-tour
swift build --product shark
echo "== building shark-bench (release: it measures)"
swift build -c release --package-path Benchmarks --product shark-bench

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
echo "== a quick shark-bench: every driver against the raw SQLite C API and GRDB, 10,000 rows"
mkdir -p .build/tour
Benchmarks/.build/release/shark-bench --rows 10000 --runs 1 --svg .build/tour/shark-bench.svg --json .build/tour/shark-bench.json
echo
echo "The chart: .build/tour/shark-bench.svg (the full run's: docs/benchmarks.svg)."
echo "Done in $(($(date +%s) - started)) s after the build."
