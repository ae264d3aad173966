#!/usr/bin/env bash
# The documentation's code, built as one package against this checkout
# (scripts/documentation_package.py) in this checkout's own build folder, so the macro library,
# the dependencies and SharkORM are those the main build compiled and only the examples
# compile here:
# - README.md's Swift blocks, through the Package.swift fragment it shows, from a checkout of
#   another name, run as one program in an empty directory; so do the guides that are
#   programs (docs/queries.md, docs/events.md, docs/sync.md), each a program of its own;
# - every other example (the doc comments of the public API, the DocC articles, the other
#   guides of docs/) type-checks, each a function given only the context in
#   scripts/doc-context/ (scripts/doc_snippets.py), and the articles that are whole programs
#   run, each in an empty directory;
# - the LowestVersions package (scripts/lowest_versions.py: swift-syntax 600, swift-crypto 3,
#   sync built from outside the package) builds in a folder of its own, and its program runs;
# - every backticked `Type.member` of README.md and docs/ names a member that exists.
# The main build's folder then holds this package's build too: the next `swift build` of
# SharkORM plans again (seconds) and compiles nothing, as long as both resolve the same
# dependency versions (a fresh clone does; after `swift package update`, delete
# .build-docs/Documentation/Package.resolved).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh

guides=(docs/queries.md docs/events.md docs/sync.md)
generated=$(python3 scripts/documentation_package.py README.md .build-docs "$PWD" "${guides[@]}")
package=$(sed -n 's/^package //p' <<<"$generated")
mapfile -t readme_programs < <(sed -n 's/^readme //p' <<<"$generated")
mapfile -t doc_programs < <(sed -n 's/^program //p' <<<"$generated")
echo "$(sed -n 's/^examples //p' <<<"$generated") examples beside README.md and ${#readme_programs[@]} programs"

scratch="$PWD/.build"
log=$(mktemp)
built=0
swift build --package-path "$package" --scratch-path "$scratch" >"$log" 2>&1 || built=$?
# README.md and the guides compile without a warning; the other examples may leave a value
# unused, nothing else.
if grep -E "^/.*/Sources/(ReadmeProgram|[A-Za-z]+Guide)/.*: (error|warning):" "$log"; then
    echo "error: README.md's or a guide's code does not compile cleanly (above)" >&2
    exit 1
fi
python3 scripts/doc_snippets.py --check-log "$log"
if [ "$built" -ne 0 ]; then
    tail -30 "$log"
    echo "error: the documentation's code did not build (above)" >&2
    exit 1
fi

bin="$(swift build --package-path "$package" --scratch-path "$scratch" --show-bin-path)"
for program in "${readme_programs[@]}" "${doc_programs[@]}"; do
    empty=$(mktemp -d)
    echo "== running $program in $empty"
    (cd "$empty" && "$bin/$program")
    rm -rf "$empty"
done
echo "README.md's, the guides' and the articles' programs ran."

# Every backticked `Type.member` of README.md and docs/, against the modules' symbol graphs
# (private members too: docs/architecture.md names the internals it explains).
swift package dump-symbol-graph --minimum-access-level private >/dev/null
graphs="$(swift build --show-bin-path)/../symbolgraph"
python3 scripts/check_doc_references.py "$graphs" "$PWD"

# The lowest versions share nothing with the main build: a package and a build folder of
# their own. (Built beside the examples' build instead, it made the stage slower on two cores.)
lowest=$(python3 scripts/lowest_versions.py "$PWD/.build-docs" "$PWD")
lowest_log=$(mktemp)
echo "== the lowest versions: building $lowest"
swift build --package-path "$lowest" >"$lowest_log" 2>&1 || {
    tail -30 "$lowest_log"
    echo "error: SharkORM does not build with the lowest dependency versions it claims (above)" >&2
    exit 1
}
if grep -E "^/.*/Sources/LowestVersions/.*: (error|warning):" "$lowest_log"; then
    echo "error: the LowestVersions program does not compile cleanly (above)" >&2
    exit 1
fi
empty=$(mktemp -d)
(cd "$empty" && "$(swift build --package-path "$lowest" --show-bin-path)/LowestVersions")
rm -rf "$empty"
