#!/usr/bin/env bash
# shark-bench's PostgreSQL family on a throw-away server: raw postgres-nio, SharkORM's
# PostgreSQL driver and Fluent, interleaved in one run, against the server scripts/test.sh's
# tests use (started here, on loopback, stopped on every exit; it runs with fsync off, as the
# tests' server does: every backend pays the same commits), unless SHARK_POSTGRES_HOST and
# the rest name a server already. Arguments go to shark-bench:
#
#     bash scripts/bench-postgres.sh --rows 100000 --runs 5 --markdown-into docs/benchmarks.md
#
# BENCH_BUILD=debug runs the debug build (what CI checks); the default is a release build,
# the only one whose figures mean anything. BENCH_SCRATCH names the build folder (CI gives
# the main build's, whose dependencies the benchmarks share); the default is Benchmarks/.build.
set -euo pipefail
if [ -n "${BENCH_SCRATCH:-}" ]; then BENCH_SCRATCH=$(realpath -m "$BENCH_SCRATCH"); fi
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
configuration=${BENCH_BUILD:-release}
scratch=${BENCH_SCRATCH:-$PWD/Benchmarks/.build}
# The build's messages on standard error: a failed build says why.
swift build -c "$configuration" --package-path Benchmarks --scratch-path "$scratch" --product shark-bench >&2
if [ -z "${SHARK_POSTGRES_HOST:-}" ]; then
    server=$(mktemp -d /tmp/shark-postgres.XXXXXX)
    trap 'bash scripts/postgres-server.sh stop "$server"' EXIT
    settings=$(bash scripts/postgres-server.sh start "$server")
    while IFS= read -r line; do export "${line?}"; done <<<"$settings"
fi
# Bounded here, not around this script, so that the trap still stops the server after it.
# BENCH_TIMEOUT seconds (a 100,000-row run of 5 repetitions takes about 15 minutes).
timeout "${BENCH_TIMEOUT:-3600}" "$scratch/$configuration/shark-bench" --postgres "$@"
