#!/usr/bin/env python3
"""Checks that every backticked `Type.member` in README.md and docs/*.md names a member that
exists, using the symbol graphs of the package's public modules (`swift package
dump-symbol-graph`): `SharkError.wrongKey` fails when SharkError has no such case.

Usage: check_doc_references.py SYMBOL_GRAPH_DIRECTORY REPOSITORY

A reference is checked when its type is one the modules declare or extend (Store,
SharkError, UUID with its `v7()`, …); members of other modules' types that the library
does not extend (`Int.max`, `Decimal.nan`) are the standard library's business and skipped.
A reference may name a member of a member (`StoreConfiguration.sqlite`, `SyncOptions.site`)
or call it (`Store.write(_:)`, `UUID.v7()`): the name before `(` is what is looked up.
"""
import glob
import json
import os
import re
import sys

MODULES = ["SharkORM", "SharkSQLite", "SharkSQLCipher", "SharkMemory", "SharkSync", "SharkDriverConformance"]
PUBLIC_ONLY = {"SharkDriverConformance"}


def symbol_paths(directory):
    """Every symbol's path (type, member, …; names without their parameter lists), and the
    types the modules declare (not only extend)."""
    paths, declared = set(), set()
    for path in glob.glob(os.path.join(directory, "*.symbols.json")):
        name = os.path.basename(path).split(".")[0]
        module, _, extended = name.partition("@")
        if module not in MODULES:
            continue
        graph = json.load(open(path, encoding="utf-8"))
        for symbol in graph.get("symbols", []):
            # The conformance suite's internals are its checks' models (a `Person` of its own),
            # which the docs never describe: only its public API counts.
            if module in PUBLIC_ONLY and symbol.get("accessLevel") not in ("public", "open"):
                continue
            components = tuple(re.sub(r"\(.*", "", component) for component in symbol["pathComponents"])
            for depth in range(1, len(components) + 1):
                paths.add(components[:depth])
            if not extended and len(components) == 1:
                declared.add(components[0])
    return paths, declared


def references(repository):
    files = [os.path.join(repository, "README.md")] + sorted(glob.glob(os.path.join(repository, "docs", "*.md")))
    for path in files:
        text = open(path, encoding="utf-8").read()
        # Code blocks are compiled elsewhere; only the prose's inline code is checked here.
        prose = re.sub(r"^```.*?^```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S | re.M)
        for number, line in enumerate(prose.split("\n"), start=1):
            for code in re.findall(r"`([^`]+)`", line):
                for match in re.finditer(r"(?<![\w.])([A-Z]\w*)((?:\.\w+)+)", code):
                    yield os.path.relpath(path, repository), number, match.group(1), match.group(2)[1:].split(".")


def main():
    paths, declared = symbol_paths(sys.argv[1])
    parents = {path[:-1] for path in paths}
    problems = []
    checked = 0
    for path, line, type_name, chain in references(sys.argv[2]):
        # A file name (`LiveQuery.swift`), not a member.
        if chain[-1] in {"swift", "md", "json", "sh", "py", "sqlite", "svg", "c", "h"}:
            continue
        # Types of other modules the library only extends: their own members are unknown here.
        if type_name not in declared:
            continue
        owner = (type_name,)
        for name in chain:
            if owner not in parents:
                break  # a member whose own members (its type's) are not listed under it
            checked += 1
            if owner + (name,) not in paths:
                problems.append(f"{path}:{line}: `{type_name}.{'.'.join(chain)}`: {'.'.join(owner)} has no member {name}")
                break
            owner = owner + (name,)
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(f"{len(problems)} reference(s) in README.md and docs/ name what does not exist")
    print(f"{checked} references to members in README.md and docs/ exist.")


if __name__ == "__main__":
    main()
