#!/usr/bin/env bash
# Builds the API reference of every public module with DocC (swift-docc-plugin), warnings as
# errors: a broken symbol link or an unresolved topic fails it. The sites land in
# .build/docs/<Module> (or under the folder given as the first argument), ready for static
# hosting; open one with any static file server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh
output=${1:-.build/docs}
mkdir -p "$output"
for target in SharkORM SharkSQLite SharkSQLCipher SharkMemory SharkSync SharkPostgres SharkHubAPI SharkHub SharkHubClient; do
    echo "== $target"
    swift package --allow-writing-to-directory "$output" \
        generate-documentation --target "$target" --output-path "$output/$target" \
        --warnings-as-errors --transform-for-static-hosting --hosting-base-path "$target"
done
echo "API reference: $output/<Module>/index.html"
