#!/usr/bin/env python3
"""Holds the core to one write stage (docs/architecture.md, "The life of a write").

Outside the write stage's file, no code of the core, of sync or of the tools calls a driver
connection's write intents (`insert(_:schema:includingKey:)`, `update(_:key:columns:schema:)`
and its bulk form, `delete(key:schema:)`, `updateAll(keys:setting:schema:)`,
`executeRaw(_:arguments:protecting:)`) or records a change (`record(schema:...)`): every write
goes through `WriteStage`, which records it by its role. Raw reads call `readRaw`, which
refuses a statement that may write.

The drivers themselves (SharkSQLiteCore, SharkMemory, SharkSQLCipher) implement the intents
and are not scanned. `ObservedRegion.swift` is a connection that wraps another one to learn
what a live query reads: it forwards the intents to the connection it wraps (`base.`).

Usage: python3 scripts/check-write-stage.py  (exit status 1, with each offending call, when
the rule is broken)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCANNED = ["Modules/SharkORM", "Modules/SharkSync", "Tools"]
STAGE = {"Modules/SharkORM/Writes/WriteStage.swift"}
# Files allowed to call the intents on a named receiver, and why.
FORWARDERS = {"Modules/SharkORM/Events/ObservedRegion.swift": "base"}
# The receivers that are the write stage itself.
STAGE_RECEIVERS = {"stage", "writeStage"}

CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*(insert|update|delete|updateAll|executeRaw)\s*\(")
RECORD = re.compile(r"(?<!func )\brecord\s*\(\s*schema:")


def strip_comments(text: str) -> str:
    """Removes // comments (string literals in this code base hold no `//` before a call)."""
    return "\n".join(re.sub(r"//.*", "", line) for line in text.splitlines())


def arguments(text: str, start: int) -> str:
    """The text between the parenthesis at `start` and its match."""
    depth = 0
    for index in range(start, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1 : index]
    return text[start + 1 :]


def is_driver_intent(name: str, args: str) -> bool:
    """Whether a call with these labels is one of the driver connection's write intents."""
    if name == "insert":
        return "includingKey:" in args
    if name == "update":
        return "schema:" in args and ("key:" in args or "keys:" in args) and "columns:" in args
    if name == "delete":
        return args.lstrip().startswith("key:") and "schema:" in args
    if name == "updateAll":
        return args.lstrip().startswith("keys:")
    if name == "executeRaw":
        return "protecting:" in args
    return False


def main() -> int:
    problems = []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.swift")):
            relative = str(path.relative_to(ROOT))
            if relative in STAGE:
                continue
            text = strip_comments(path.read_text())
            for match in CALL.finditer(text):
                receiver, name = match.group(1), match.group(2)
                if receiver in STAGE_RECEIVERS or FORWARDERS.get(relative) == receiver:
                    continue
                args = arguments(text, match.end() - 1)
                if is_driver_intent(name, args):
                    line = text.count("\n", 0, match.start()) + 1
                    problems.append(f"{relative}:{line}: {receiver}.{name}(...) calls the driver outside the write stage")
            for match in RECORD.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                if relative == "Modules/SharkORM/Transactions/TransactionStack.swift":
                    continue  # where a recorded change is kept, not where one is made
                problems.append(f"{relative}:{line}: records a change outside the write stage")
    if problems:
        print("Writes must go through WriteStage (Modules/SharkORM/Writes/WriteStage.swift):")
        for problem in problems:
            print("  " + problem)
        return 1
    print(f"write stage: every driver write and change record of {', '.join(SCANNED)} is in {', '.join(sorted(STAGE))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
