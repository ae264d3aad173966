#!/usr/bin/env bash
# Builds every Swift block of README.md as one program, through the Package.swift fragment it
# shows, and runs it in an empty directory: the README cannot drift from what works.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

work=.build-readme
mkdir -p "$work"
package=$(python3 scripts/readme_program.py README.md "$work" "$PWD")
log=$(mktemp)
swift build --package-path "$package" 2>&1 | tee "$log"
if grep -E "^/.*ReadmeProgram/.*: warning:" "$log"; then
    echo "error: README.md's code compiles with warnings (above)" >&2
    exit 1
fi
binary="$(swift build --package-path "$package" --show-bin-path)/ReadmeProgram"
empty=$(mktemp -d)
trap 'rm -rf "$empty"' EXIT
echo "== running README.md's code in $empty"
(cd "$empty" && "$binary")
echo "README.md's code ran."
