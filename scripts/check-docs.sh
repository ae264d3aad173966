#!/usr/bin/env bash
# Type-checks every Swift example of the documentation that check-readme.sh does not run as
# a program: the doc comments of the public API, the DocC articles, and the guides of docs/
# (scripts/doc_snippets.py makes each a function of a package against this checkout, with
# only the context in scripts/doc-context/), and runs the articles that are whole programs.
# Then checks that every backticked `Type.member` of README.md and docs/ names a member that
# exists.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

mapfile -t generated < <(python3 scripts/doc_snippets.py .build-docs "$PWD")
package=${generated[0]}
echo "${generated[1]} examples"
log=$(mktemp)
built=0
swift build --package-path "$package" >"$log" 2>&1 || built=$?
python3 scripts/doc_snippets.py --check-log "$log"
if [ "$built" -ne 0 ]; then
    tail -30 "$log"
    echo "error: the documentation's examples did not build (above)" >&2
    exit 1
fi
# The articles that are whole programs (they import what they use and name nothing of the
# context) run, each in an empty directory.
bin="$(swift build --package-path "$package" --show-bin-path)"
for program in "${generated[@]:2}"; do
    empty=$(mktemp -d)
    echo "== running $program in $empty"
    (cd "$empty" && "$bin/$program")
    rm -rf "$empty"
done

# Every backticked `Type.member` of README.md and docs/, against the modules' symbol graphs
# (private members too: docs/architecture.md names the internals it explains).
swift package dump-symbol-graph --minimum-access-level private >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
python3 scripts/check_doc_references.py "$graphs" "$PWD"
