#!/usr/bin/env python3
"""Checks the shape of shark-bench's scale family (Z): every backend has every point
operation at every size, each a positive median inside its spread; the SharkORM drivers have
the windows of batch(size:); every backend has its heap per row; the chart is well-formed SVG
with a panel per operation and a line per backend. Shape only: CI runs it small and in debug.

Usage: check-bench-scale.py OUT.json OUT.svg"""
import json
import sys
import xml.etree.ElementTree as ElementTree

BACKENDS = ["raw-sqlite", "raw-sqlcipher", "sqlite", "sqlcipher", "memory", "dictionary"]
SHARK = ["sqlite", "sqlcipher", "memory"]
POINT = ["commit-1", "commit-100", "lookup", "lookup-after-commit", "update-1", "remove-1", "count"]
# What a Dictionary has no notion of: transactions to snapshot or nest.
TRANSACTIONS = ["snapshot", "savepoint"]
WINDOWS = ["window-first", "window-last", "ordered-window-first", "ordered-window-last"]


def fail(message):
    print(f"check-bench-scale: {message}", file=sys.stderr)
    sys.exit(1)


def main(json_path, svg_path):
    scale = json.load(open(json_path)).get("scale")
    if not scale:
        fail(f"{json_path} has no scale section")
    sizes = scale["sizes"]
    if len(sizes) < 2 or sizes != sorted(sizes):
        fail(f"sizes {sizes}: at least two, ascending")
    if sorted(scale["backends"]) != sorted(BACKENDS):
        fail(f"backends {scale['backends']}, expected {BACKENDS}")
    points = {(p["backend"], p["operation"], p["rows"]): p for p in scale["points"]}
    for backend in BACKENDS:
        operations = POINT + ([] if backend == "dictionary" else TRANSACTIONS) + (WINDOWS if backend in SHARK else [])
        for operation in operations:
            for size in sizes:
                point = points.get((backend, operation, size))
                if point is None:
                    fail(f"no {operation} for {backend} at {size} rows")
                low, median, high = point["minMicroseconds"], point["medianMicroseconds"], point["maxMicroseconds"]
                if not 0 < low <= median <= high:
                    fail(f"{backend} {operation} at {size}: min {low}, median {median}, max {high}")
        for size in sizes:
            footprint = [f for f in scale["footprints"] if f["backend"] == backend and f["rows"] == size]
            if len(footprint) != 1:
                fail(f"no heap per row for {backend} at {size} rows")
    svg = ElementTree.parse(svg_path).getroot()
    if not svg.tag.endswith("svg"):
        fail(f"{svg_path} is not an SVG document")
    lines = [e for e in svg.iter() if e.tag.endswith("polyline")]
    expected = len(BACKENDS) * len(POINT) + (len(BACKENDS) - 1) * len(TRANSACTIONS)
    if len(lines) != expected:
        fail(f"the chart has {len(lines)} lines, expected {expected} (one per backend and operation)")
    print(f"{json_path} and {svg_path}: scale family at {sizes}, {len(points)} figures: ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
