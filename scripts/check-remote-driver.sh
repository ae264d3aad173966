#!/usr/bin/env bash
# A driver outside this package runs the conformance suite: Examples/RemoteDriver is a package
# of its own (its Package.swift names this checkout by path), so `package` declarations of the
# core are invisible to it, and it imports SharkORM's modules only plainly or through
# `@_spi(SharkDriver)`. Its every call awaits an actor, plugged into the blocking seam through
# SuspendingDriverExecutor (docs/architecture.md, "Drivers whose calls suspend"). Its tests are
# one parameterized test over ConformanceSuite.cases(for:), run here.
# It builds in this checkout's build folder (--scratch-path): the dependencies and SharkORM
# are those the main build compiled, and only the example compiles here. The next
# `swift build` of SharkORM plans again (seconds) and compiles nothing, as long as both
# resolve the same dependency versions (after `swift package update`, delete
# Examples/RemoteDriver/Package.resolved).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

example=Examples/RemoteDriver
# Only the seams a third-party driver may use: no @testable, no other SPI.
if grep -rnE '^(@testable|@_spi\((Shark[A-Za-z]*)\)).*import Shark' "$example/Sources" "$example/Tests" \
    | grep -vE '^[^:]+:[0-9]+:(@_spi\(SharkDriver\) )+import Shark[A-Za-z]*$'; then
    echo "error: the example driver imports SharkORM beyond its public and @_spi(SharkDriver) API (above)" >&2
    exit 1
fi

scratch="$PWD/.build"
log=$(mktemp)
swift build --package-path "$example" --scratch-path "$scratch" --build-tests 2>&1 | tee "$log"
if grep -E "^/.*Examples/RemoteDriver/.*: warning:" "$log"; then
    echo "error: the example driver builds with warnings (above)" >&2
    exit 1
fi
swift test --package-path "$example" --scratch-path "$scratch" 2>&1 | tee "$log" | grep -E '^. Test (run|"conformance")|✘' || true
grep -qE '^✔ Test "conformance" with [0-9]+ test cases passed' "$log" || {
    echo "error: the conformance suite did not pass on the example driver" >&2
    tail -50 "$log" >&2
    exit 1
}
