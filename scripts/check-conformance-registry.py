#!/usr/bin/env python3
"""Every check of the conformance suite runs: each function of Modules/SharkDriverConformance/
Checks/ that takes the driver under test (`func name(driver: ConformanceDriver)`) is listed once
in ConformanceSuite+Checks.swift, and nothing listed there is missing. A check written and not
listed would silently never run on any driver.

Usage: python3 scripts/check-conformance-registry.py
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "Modules/SharkDriverConformance"


def main() -> int:
    defined = set()
    for path in sorted((LIBRARY / "Checks").rglob("*.swift")):
        owner = None
        for line in path.read_text().splitlines():
            declaration = re.match(r"^(?:struct|extension) (\w+)", line)
            if declaration:
                owner = declaration.group(1)
            check = re.match(r"^\s+(?:@MainActor\s+)?func (\w+)\(driver: ConformanceDriver\)", line)
            if check:
                defined.add(f"{owner}.{check.group(1)}")
    registry = (LIBRARY / "ConformanceSuite+Checks.swift").read_text()
    listed = re.findall(r"(\w+)\(\)\.(\w+)\(driver: \$0\)", registry)
    listed_names = [f"{owner}.{name}" for owner, name in listed]
    problems = [f"{name} is a check no line of ConformanceSuite+Checks.swift runs" for name in sorted(defined - set(listed_names))]
    problems += [f"{name} is listed but no check of Checks/ has that name" for name in sorted(set(listed_names) - defined)]
    problems += [f"{name} is listed twice" for name in sorted({n for n in listed_names if listed_names.count(n) > 1})]
    if problems:
        print("The conformance suite's registry and its checks disagree:")
        for problem in problems:
            print("  " + problem)
        return 1
    print(f"conformance suite: {len(defined)} checks, each listed once")
    return 0


if __name__ == "__main__":
    sys.exit(main())
