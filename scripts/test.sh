#!/usr/bin/env bash
# Installs what is missing, then runs every test: the macro tests, the SQL layer tests, the
# driver conformance suite (on PostgreSQL too, against a throw-away server started here and
# stopped on every exit), and the `shark` command line run as a subprocess (built first, so
# its tests find the binary beside them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
swift build --product shark
# The PostgreSQL driver's tests need a server: a throw-away one, unless the environment names
# one already (SHARK_POSTGRES_HOST and the rest, as scripts/postgres-server.sh prints them).
if [ -z "${SHARK_POSTGRES_HOST:-}" ]; then
    server=$(mktemp -d /tmp/shark-postgres.XXXXXX)
    trap 'bash scripts/postgres-server.sh stop "$server"' EXIT
    settings=$(bash scripts/postgres-server.sh start "$server")
    while IFS= read -r line; do export "${line?}"; done <<<"$settings"
    echo "PostgreSQL for the tests: $SHARK_POSTGRES_HOST:$SHARK_POSTGRES_PORT (and $SHARK_POSTGRES_SOCKET)"
fi
swift test "$@"
