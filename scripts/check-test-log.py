#!/usr/bin/env python3
"""Checks the log of the README's test command: under 500 KB, and no test's displayed name
over 200 characters nor any test case's line (its arguments shown) over 400. Large test
arguments show a summary (Modules/SharkDriverConformance/Support/TestSample.swift), never their value.

Then reports what ran: the conformance checks started per driver (PostgreSQL's must be there:
the suite ran against a real server) and the checks not run on PostgreSQL, with their reasons.

Usage: check-test-log.py LOG
"""
import os
import re
import sys


def main():
    path = sys.argv[1]
    size = os.path.getsize(path)
    problems = []
    per_driver = {}
    not_run = []
    if size >= 500_000:
        problems.append(f"the test log is {size:,} bytes; it should stay under 500,000")
    with open(path, encoding="utf-8", errors="replace") as log:
        for number, line in enumerate(log, start=1):
            line = line.rstrip("\n")
            name = re.match(r'^. Test "(.*)" started\.$', line)
            if name and len(name.group(1)) > 200:
                problems.append(f"line {number}: a test name of {len(name.group(1))} characters")
            if "Test case passing" in line and len(line) > 400:
                problems.append(f"line {number}: a test case shown in {len(line)} characters: {line[:120]}…")
            case = re.search(r'Test case passing 1 argument check → .* \[([a-z]+)\] to "conformance" started\.$', line)
            if case:
                per_driver[case.group(1)] = per_driver.get(case.group(1), 0) + 1
            if line.startswith("not run on PostgreSQL: "):
                not_run.append(line[len("not run on PostgreSQL: "):])
    if per_driver:
        print("Conformance checks run per driver: "
              + ", ".join(f"{driver} {count}" for driver, count in sorted(per_driver.items())))
    if not_run:
        print(f"Not run on PostgreSQL ({len(not_run)}):")
        for entry in sorted(set(not_run)):
            print(f"  - {entry}")
    if per_driver and "postgres" not in per_driver:
        problems.append("no conformance check ran on PostgreSQL")
    if problems:
        sys.exit("\n".join(problems[:20]))
    print(f"Test log: {size:,} bytes, every name and argument short.")


if __name__ == "__main__":
    main()
