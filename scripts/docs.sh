#!/usr/bin/env bash
# Builds the API reference of every public module with DocC (swift-docc-plugin), warnings as
# errors: a broken symbol link or an unresolved topic fails it. One site holds every module
# (DocC's combined documentation), so a page of one module links to another's symbols, and one
# plugin run builds it all: the plugin's tools and the package graph load once, not once a
# module. The site lands in .build/docs (or in the folder given as the first argument), ready
# for static hosting under /SharkORM/; open it with any static file server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
output=${1:-.build/docs}
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
