#!/usr/bin/env python3
"""Checks the log of the README's test command: under 500 KB, and no test's displayed name
over 200 characters nor any test case's line (its arguments shown) over 400. Large test
arguments show a summary (Modules/SharkDriverConformance/Support/TestSample.swift), never their value.

Usage: check-test-log.py LOG
"""
import os
import re
import sys


def main():
    path = sys.argv[1]
    size = os.path.getsize(path)
    problems = []
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
    if problems:
        sys.exit("\n".join(problems[:20]))
    print(f"Test log: {size:,} bytes, every name and argument short.")


if __name__ == "__main__":
    main()
