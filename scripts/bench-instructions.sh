#!/usr/bin/env bash
# Instruction counts of shark-bench's workloads under callgrind: unlike times, they do not move
# with whatever else the machine is doing. One process per backend and workload, counting only
# the timed section (shark-bench's `measured` function), then ratios to raw C SQLite.
#
#     bash scripts/bench-instructions.sh                 # 20,000 rows, every SQL backend
#     ROWS=100000 BACKENDS="raw-sqlite sqlite" bash scripts/bench-instructions.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/system-libraries.sh >/dev/null
command -v valgrind >/dev/null || { echo "error: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

rows=${ROWS:-20000}
backends=${BACKENDS:-raw-sqlite sqlite raw-sqlcipher sqlcipher grdb memory dictionary}
workloads=${WORKLOADS:-W1 W2 W3 W4}
swift build -c release --package-path Benchmarks --product shark-bench >/dev/null
output=$(mktemp -d)
trap 'rm -rf "$output"' EXIT
# valgrind 3.19 cannot read the DWARF 5 that Swift 6 emits: count a copy without debug
# information (the symbol table, all callgrind needs for totals, stays).
binary="$output/shark-bench"
objcopy --strip-debug Benchmarks/.build/release/shark-bench "$binary"

declare -A counts
for workload in $workloads; do
    for backend in $backends; do
        [[ $backend == dictionary && $workload == W3 ]] && continue
        file="$output/$backend-$workload.out"
        TMPDIR=/dev/shm valgrind --tool=callgrind --toggle-collect='*measured*' --callgrind-out-file="$file" \
            "$binary" --backends "$backend" --workloads "$workload" --runs 1 --rows "$rows" >/dev/null 2>&1
        counts[$backend-$workload]=$(grep -E '^(summary|totals):' "$file" | head -1 | awk '{print $2}')
    done
done

echo "Instructions (millions) of the timed section, $rows rows, and the ratio to raw C SQLite:"
printf '%-10s' workload
for backend in $backends; do printf '%22s' "$backend"; done
echo
for workload in $workloads; do
    printf '%-10s' "$workload"
    base=${counts[raw-sqlite-$workload]:-}
    for backend in $backends; do
        count=${counts[$backend-$workload]:-}
        if [[ -z $count ]]; then printf '%22s' "—"; continue; fi
        if [[ -n $base ]]; then
            printf '%22s' "$(awk -v c="$count" -v b="$base" 'BEGIN { printf "%.1f (%.2f×)", c / 1e6, c / b }')"
        else
            printf '%22s' "$(awk -v c="$count" 'BEGIN { printf "%.1f", c / 1e6 }')"
        fi
    done
    echo
done
