#!/usr/bin/env bash
# The version is stated once (Modules/SharkORM/Store/Version.swift); the CHANGELOG's top entry must
# name it and `shark --version` must print it. Needs `swift build --product shark` first.
set -euo pipefail
cd "$(dirname "$0")/.."
stated=$(sed -n 's/^public let sharkORMVersion = "\(.*\)"$/\1/p' Modules/SharkORM/Store/Version.swift)
if [ -z "$stated" ]; then
    echo "error: Modules/SharkORM/Store/Version.swift states no sharkORMVersion" >&2
    exit 1
fi
top=$(sed -n 's/^## \([0-9][^ ]*\).*/\1/p' CHANGELOG.md | head -1)
if [ "$top" != "$stated" ]; then
    echo "error: CHANGELOG.md's top entry is '$top', the version stated is '$stated'" >&2
    exit 1
fi
printed=$(.build/debug/shark --version)
if [ "$printed" != "$stated" ]; then
    echo "error: shark --version prints '$printed', the version stated is '$stated'" >&2
    exit 1
fi
[ -f LICENSE ] || { echo "error: no LICENSE" >&2; exit 1; }
echo "Version $stated: Version.swift, CHANGELOG.md and shark --version agree."
