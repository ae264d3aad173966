#!/usr/bin/env bash
# The backend comparison, its own command: installs what is missing, builds shark-bench in
# release (the Benchmarks package: GRDB and SharkORM again, several minutes the first time),
# then runs it. With no arguments, a short run: 10,000 rows, 3 interleaved repetitions, which
# labels itself indicative and shows its spread; the chart lands in .build/bench/. Any
# arguments go to shark-bench instead (the measurement: --rows 100000 --runs 5; see
# docs/benchmarks.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

echo "== building shark-bench (release: it measures)"
swift build -c release --package-path Benchmarks --product shark-bench
if [ "$#" -eq 0 ]; then
    mkdir -p .build/bench
    set -- --rows 10000 --runs 3 --svg .build/bench/shark-bench.svg --json .build/bench/shark-bench.json
fi
Benchmarks/.build/release/shark-bench "$@"
