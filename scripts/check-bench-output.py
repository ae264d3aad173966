#!/usr/bin/env python3
"""Checks the shape of shark-bench's --json and --svg output: every backend and workload is
there, every number is positive, the chart is well-formed SVG naming every workload and
backend. Usage: check-bench-output.py OUT.json OUT.svg"""
import json
import sys
import xml.etree.ElementTree as ElementTree

BACKENDS = ["raw-sqlite", "raw-sqlcipher", "grdb", "sqlite", "sqlcipher", "memory", "dictionary"]
SHARK = ["sqlite", "sqlcipher", "memory"]
WORKLOADS = ["W1", "W2", "W3", "W4", "L", "Q", "A", "J", "R"]
# Workloads a Dictionary cannot run (it has no ordered index).
NOT_ON_DICTIONARY = {"W3", "Q", "J"}


def fail(message):
    print(f"check-bench-output: {message}", file=sys.stderr)
    sys.exit(1)


def positive(value, where):
    if not isinstance(value, (int, float)) or not value > 0:
        fail(f"{where} is {value!r}, not a positive number")


def main(json_path, svg_path):
    results = json.load(open(json_path))
    for key in ["date", "build", "machine", "sqliteVersion", "rows", "runs"]:
        if key not in results:
            fail(f"{json_path} has no {key}")
    backends = {backend["id"]: backend for backend in results["backends"]}
    if sorted(backends) != sorted(BACKENDS):
        fail(f"backends {sorted(backends)}, expected {sorted(BACKENDS)}")
    for backend in backends.values():
        positive(backend.get("peakMemoryBytes"), f"peak memory of {backend['id']}")
    workloads = {workload["id"]: workload for workload in results["workloads"]}
    if sorted(workloads) != sorted(WORKLOADS):
        fail(f"workloads {sorted(workloads)}, expected {sorted(WORKLOADS)}")
    for workload_id, workload in workloads.items():
        timings = {timing["backend"]: timing for timing in workload["timings"]}
        expected = [b for b in BACKENDS if not (b == "dictionary" and workload_id in NOT_ON_DICTIONARY)]
        if sorted(timings) != sorted(expected):
            fail(f"{workload_id} has timings for {sorted(timings)}, expected {sorted(expected)}")
        for backend, timing in timings.items():
            for key in ["medianMilliseconds", "minMilliseconds", "maxMilliseconds", "ratioToRawSQLite"]:
                positive(timing.get(key), f"{workload_id} {backend} {key}")
            if not timing["minMilliseconds"] <= timing["medianMilliseconds"] <= timing["maxMilliseconds"]:
                fail(f"{workload_id} {backend}: the median is outside min–max")
    for section, keys in [
        ("sync", ["captureRatio", "bytesPerChange", "exportChangesPerSecond", "importShareOfPlainInserts", "firstUpdateMilliseconds", "laterUpdateMilliseconds", "recentExportMilliseconds"]),
        ("observation", ["ratio", "latencyMedianMilliseconds", "latencyP99Milliseconds", "deliveries"]),
    ]:
        figures = {figure["backend"]: figure for figure in results.get(section) or []}
        if sorted(figures) != sorted(SHARK):
            fail(f"{section} has {sorted(figures)}, expected {sorted(SHARK)}")
        for backend, figure in figures.items():
            for key in keys:
                positive(figure.get(key), f"{section} {backend} {key}")
            if section == "sync":
                # Sampled every 25 ms: a short export can peak between two samples, at 0.
                for key in ["exportPeakMegabytes", "importPeakMegabytes"]:
                    value = figure.get(key)
                    if not isinstance(value, (int, float)) or value < 0:
                        fail(f"sync {backend} {key} is {value!r}, expected a number of megabytes")

    svg = ElementTree.parse(svg_path).getroot()
    if not svg.tag.endswith("svg"):
        fail(f"{svg_path} is not an SVG document")
    texts = " ".join(element.text or "" for element in svg.iter() if element.tag.endswith("text"))
    for backend in backends.values():
        if backend["title"] not in texts:
            fail(f"the chart does not name {backend['title']}")
    for workload in workloads.values():
        if workload["title"][:40] not in texts:
            fail(f"the chart does not name {workload['title']}")
    bars = [element for element in svg.iter() if element.tag.endswith("rect") and element.find("{*}title") is not None]
    expected_bars = sum(len(workload["timings"]) for workload in workloads.values())
    if len(bars) < expected_bars:
        fail(f"the chart has {len(bars)} bars, expected at least {expected_bars}")
    print(f"{json_path} and {svg_path}: {len(backends)} backends, {len(workloads)} workloads, sync and observation: ok")


if __name__ == "__main__":
    main(*sys.argv[1:3])
