#!/usr/bin/env bash
# Builds the API reference of every public module with DocC (swift-docc-plugin), warnings as
# errors: a broken symbol link or an unresolved topic fails it. One site holds every module
# (DocC's combined documentation), so a page of one module links to another's symbols, and one
# plugin run builds it all: the plugin's tools and the package graph load once, not once a
# module. The site lands in .build/docs (or in the folder given as the first argument), ready
# for static hosting under /SharkORM/; open it with any static file server.
set -euo pipefail
# The folder is the caller's (read before moving to the repository), and DocC replaces it
# whole: one that holds anything but a site built here is refused.
output=$(realpath -m "${1:-$(dirname "$0")/../.build/docs}")
cd "$(dirname "$0")/.."
if [ -d "$output" ] && [ -n "$(ls -A "$output")" ] && [ ! -f "$output/index.html" ]; then
    echo "error: $output holds other files: DocC would replace them; name an empty or new folder" >&2
    exit 1
fi
bash scripts/system-libraries.sh
mkdir -p "$output"
targets=()
for target in SharkORM SharkSQLite SharkSQLCipher SharkMemory SharkSync SharkPostgres SharkHubAPI SharkHub SharkHubClient; do
    targets+=(--target "$target")
done
swift package --allow-writing-to-directory "$output" \
    generate-documentation "${targets[@]}" --output-path "$output" \
    --enable-experimental-combined-documentation \
    --warnings-as-errors --transform-for-static-hosting --hosting-base-path SharkORM
echo "API reference: $output/index.html (a page per module under $output/documentation/)"
