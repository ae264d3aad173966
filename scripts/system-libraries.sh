#!/usr/bin/env bash
# Installs the system libraries SharkORM links or loads, when any is missing:
# libsqlite3-dev (the SQLite driver), libsqlcipher-dev (the SQLCipher driver), zlib1g-dev (sync),
# and the sqlite3 and sqlcipher shells, which the tests use to make databases as other programs do.
set -euo pipefail

packages=(libsqlite3-dev libsqlcipher-dev zlib1g-dev sqlite3 sqlcipher)
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing ${missing[*]}…"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
