#!/usr/bin/env bash
# Builds every Swift block of README.md as one program, through the Package.swift fragment it
# shows, and runs it in an empty directory: the README cannot drift from what works. The
# guides in docs/ with Swift examples (docs/queries.md) are built and run the same way, each
# as a program of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

work=.build-readme
mkdir -p "$work"
guides=(docs/queries.md docs/events.md docs/sync.md)
mapfile -t generated < <(python3 scripts/readme_program.py README.md "$work" "$PWD" "${guides[@]}")
package=${generated[0]}
log=$(mktemp)
swift build --package-path "$package" 2>&1 | tee "$log"
if grep -E "^/.*ReadmeProgram/.*: warning:" "$log"; then
    echo "error: README.md's or a guide's code compiles with warnings (above)" >&2
    exit 1
fi
bin="$(swift build --package-path "$package" --show-bin-path)"
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
for program in "${generated[@]:1}"; do
    echo "== running $program in $empty"
    (cd "$empty" && "$bin/$program")
done
echo "README.md's and the guides' code ran."
