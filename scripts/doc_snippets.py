#!/usr/bin/env python3
"""Collects every Swift code block of the documentation: the doc comments of the public
modules (``` swift fences inside `///` comments), the DocC articles (`*.docc/*.md`) and the
guides in docs/ that are not whole programs run by scripts/check-docs.sh. Each becomes a
function of its own in the package scripts/documentation_package.py generates (its
`generate`), so that CI type-checks every example a reader may copy.

Usage: doc_snippets.py --list REPOSITORY
       doc_snippets.py --check-log BUILD_LOG

The first form prints every example with its origin. The second reads the build's output: any error fails, and so does any warning but
those a fragment cannot help (a value an example computes and does not use).

The harness supplies only the context a block names and does not declare itself: a `store`
(Store), a `tx` (WriteTransaction), a `sync` (SyncEngine), the README's `Person` model and
the few other names in CONTEXT below, as parameters of the block's function. A block that
declares types or functions at its top level keeps them at file scope, `fileprivate`, so
that two blocks may declare a `Note` each. A block that is a whole program (it opens its
own store and imports what it uses) is compiled the same way; none of them needs an Apple
framework (a SwiftUI example is written against the `View` stand-in of the context).
"""
import os
import re
import sys

# An import line, plain or of a module's SPI (`@_spi(SharkDriver) import SharkORM`, as driver
# authors write).
IMPORT = re.compile(r"^(@_spi\(\w+\) )*import ")

# Names a block may use without declaring them, and what the harness passes for each.
CONTEXT = {
    "store": "Store",
    "vault": "Store",
    "tx": "WriteTransaction",
    "sync": "SyncEngine",
    "other": "SyncEngine",
    "otherSync": "SyncEngine",
    "laptop": "SyncEngine",
    "phone": "SyncEngine",
    "tablet": "SyncEngine",
    "person": "Person",
    "ada": "Person",
    "grace": "Person",
    "alan": "Person",
    "employee": "Employee",
    "sales": "Department",
    "chess": "Club",
    "order": "Order",
    "invoice": "Invoice",
    "id": "Int64",
    "query": "Query<Person>",
    "parser": "PredicateParser",
    "employees": "EntitySchema",
    "departments": "EntitySchema",
    "a": "QueryExpression",
    "b": "QueryExpression",
    "c": "QueryExpression",
    "file": "Data",
    "data": "Data",
    "key": "ChangeLogKey",
    "peerVector": "VersionVector",
    "secret": "String",
    "newSecret": "String",
    "thirtyTwoBytes": "Data",
    "changes": "[Change]",
    "change": "ResultsChange<Person>",
    "event": "CommitEvent",
    "hub": "Hub",
    "token": "DeviceToken",
    "client": "SyncClient",
    "body": "Data",
}

MODULES = [
    "SharkORM", "SharkSQLite", "SharkSQLCipher", "SharkMemory", "SharkSync", "SharkPostgres", "SharkHub",
    "SharkHubAPI", "SharkHubClient", "SharkDriverConformance",
]

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|final|open)\s+)*"
    r"(?:class|struct|enum|protocol|extension|func|actor|typealias)\b")


def documents_public_api(lines, index):
    """Whether the doc comment around line `index` (0-based) documents a public declaration:
    the first line after it that is neither comment nor attribute says `public` or `open`."""
    while index < len(lines) and lines[index].strip().startswith("///"):
        index += 1
    while index < len(lines) and (lines[index].strip().startswith("@") or not lines[index].strip()):
        if re.search(r"\b(public|open)\b", lines[index]):
            return True
        index += 1
    return index < len(lines) and re.search(r"\b(public|open)\b", lines[index]) is not None


def doc_comment_blocks(path):
    """The ```swift blocks of the `///` comments of one source file's public declarations,
    with their line."""
    blocks = []
    lines = open(path, encoding="utf-8").read().split("\n")
    current = None
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped.startswith("///"):
            current = None
            continue
        text = stripped[3:]
        if text.startswith(" "):
            text = text[1:]
        if current is None and text.strip() == "```swift":
            current = (number, [])
            continue
        if current is not None:
            if text.strip() == "```":
                if documents_public_api(lines, number):
                    blocks.append((f"{path}:{current[0]}", "\n".join(current[1])))
                current = None
            else:
                current[1].append(text)
    return blocks


def markdown_blocks(path):
    """An article's blocks, as one: they are written to follow each other (the models of the
    first, the store of the second, …), as the README's are."""
    text = open(path, encoding="utf-8").read()
    matches = list(re.finditer(r"^```swift\n(.*?)^```", text, flags=re.S | re.M))
    if not matches:
        return []
    line = text[: matches[0].start()].count("\n") + 1
    return [(f"{path}:{line}", "\n".join(match.group(1) for match in matches))]


def split(block):
    """Top-level declarations (kept at file scope) and statements (the function's body)."""
    declarations, statements = [], []
    lines = block.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        start = index
        # Attributes on lines of their own belong to the declaration after them.
        while index < len(lines) and re.match(r"^@\w+", lines[index]) and not DECLARATION.match(lines[index]):
            index += 1
        if index < len(lines) and DECLARATION.match(lines[index]) and not lines[index].startswith(" "):
            depth = 0
            seen_brace = False
            while index < len(lines):
                depth += lines[index].count("{") - lines[index].count("}")
                seen_brace = seen_brace or "{" in lines[index]
                index += 1
                if seen_brace and depth <= 0:
                    break
                if not seen_brace and not lines[index - 1].rstrip().endswith((",", "(")) and (
                    index >= len(lines) or not lines[index].startswith(" ")
                ):
                    break
            declarations.append("\n".join(lines[start:index]))
        else:
            index = start
            statements.append(lines[index])
            index += 1
    return "\n".join(declarations), "\n".join(statements)


def file_private(declarations):
    """Declarations made `fileprivate` at the top level (extensions keep their members)."""
    out = []
    for line in declarations.split("\n"):
        match = re.match(r"^((?:@\w+(?:\([^)]*\))?\s+)*)(final class|class|struct|enum|func|actor|typealias|protocol)\b", line)
        if match and not line.startswith((" ", "\t")):
            line = match.group(1) + "fileprivate " + line[len(match.group(1)):]
        out.append(line)
    return "\n".join(out)


def identifiers_declared(code):
    return set(re.findall(r"\b(?:let|var|func|class|struct|enum|case let|for|guard let|if let)\s+(\w+)", code)) | set(
        re.findall(r"\bfor\s+\(?(\w+)", code)) | set(re.findall(r"\{\s*(\w+)\s+in\b", code))


TOLERATED_WARNINGS = re.compile(r"#no-usage|was written to, but never read")


def check_log(path):
    problems = []
    for line in open(path, encoding="utf-8", errors="replace"):
        if re.match(r"^/.*/Sources/(DocSnippets|DocContext|Program\w*)/.*: (error|warning):", line) and not TOLERATED_WARNINGS.search(line):
            problems.append(line.rstrip())
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(f"{len(problems)} problem(s) in the documentation's examples (each file names its origin)")
    print("Every documentation example type-checks.")


def write_if_changed(path, text):
    """Writes a generated file only when its text differs, so that building the package again
    recompiles only what changed."""
    if os.path.exists(path) and open(path, encoding="utf-8").read() == text:
        return
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def collect(repository):
    """Every example of the doc comments, the DocC articles and the guides, with its origin."""
    sources = []
    for module in MODULES:
        folder = os.path.join(repository, "Modules", module)
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                path = os.path.join(root, name)
                relative = os.path.relpath(path, repository)
                if name.endswith(".swift"):
                    sources += [(relative, module, where, code) for where, code in doc_comment_blocks(path)]
                elif name.endswith(".md") and ".docc" in root:
                    sources += [(relative, module, where, code) for where, code in markdown_blocks(path)]
    for guide in ["architecture.md", "errors.md", "values.md", "sync-format.md", "cli.md", "benchmarks.md", "hub.md"]:
        path = os.path.join(repository, "docs", guide)
        if os.path.exists(path):
            sources += [(f"docs/{guide}", "docs", where, code) for where, code in markdown_blocks(path)]
    return sources


def generate(package, repository):
    """Writes the examples into `package`'s Sources (the DocSnippets target, the DocContext it
    is given, and a Program… executable per article that is a whole program) and returns what
    the package's manifest needs: (dependencies, targets, programs, number of examples). The
    manifest must name this checkout `SharkORM`."""
    sources = collect(repository)
    target = os.path.join(package, "Sources", "DocSnippets")
    os.makedirs(target, exist_ok=True)
    written = set()
    programs = []
    for number, (_, _, where, code) in enumerate(sources, start=1):
        imports = [line for line in code.split("\n") if IMPORT.match(line)]
        origin = os.path.relpath(where.split(":")[0], repository) + ":" + where.split(":")[1]
        declared = identifiers_declared(code)
        # Argument labels (`key: .passphrase(…)`) are not uses.
        uncommented = re.sub(r"//.*", "", code)
        used = set(re.findall(r"(?<![.\w])(\w+)\b(?!\s*:(?!:))", uncommented)) | set(
            re.findall(r"\?\s*(\w+)\s*:", uncommented))
        parameters = [f"_ {name}: {kind}" for name, kind in CONTEXT.items() if name in used and name not in declared]
        if imports and not parameters and ".md:" in where:
            # A whole program (an article that imports what it uses and names nothing of the
            # context): an executable of its own, which check-docs.sh runs.
            name = "Program" + re.sub(r"\W", "", os.path.basename(where.split(":")[0]).split(".")[0])
            programs.append((name, origin, code))
            continue
        body = "\n".join(line for line in code.split("\n") if not IMPORT.match(line))
        declarations, statements = split(body)
        source = f"// Generated by scripts/doc_snippets.py from {origin}: do not edit.\n"
        # A fragment gets every module; a block with its own imports is a program, and gets
        # only those (and the context), so a missing import fails it.
        given = set(imports) if imports else {f"import {m}" for m in MODULES + ["Logging"]}
        source += "\n".join(sorted(given | {"import Foundation", "import DocContext"})) + "\n\n"
        if declarations.strip():
            source += file_private(declarations) + "\n\n"
        statements = "\n".join("    " + line if line.strip() else "" for line in statements.split("\n"))
        effects = "async throws" if re.search(r"\bawait\b", statements) else "throws"
        source += f"@MainActor\nprivate func snippet{number}({', '.join(parameters)}) {effects} {{\n"
        source += f"    // {origin}\n{statements}\n}}\n"
        file_name = f"Snippet{number:03}.swift"
        write_if_changed(os.path.join(target, file_name), source)
        written.add(file_name)
    for name in os.listdir(target):
        if name.startswith("Snippet") and name not in written:
            os.remove(os.path.join(target, name))
    for name, origin, code in programs:
        folder = os.path.join(package, "Sources", name)
        os.makedirs(folder, exist_ok=True)
        write_if_changed(os.path.join(folder, "main.swift"),
                         f"// Generated by scripts/doc_snippets.py from {origin}: do not edit.\n{code}")
    context = os.path.join(package, "Sources", "DocContext")
    os.makedirs(context, exist_ok=True)
    with open(os.path.join(repository, "scripts", "doc-context", "DocContext.swift"), encoding="utf-8") as source:
        write_if_changed(os.path.join(context, "DocContext.swift"), source.read())
    products = "".join(
        f'                .product(name: "{name}", package: "SharkORM"),\n'
        for name in MODULES)
    # Whole programs run: they link the drivers, never the conformance suite (which links
    # the testing library, found only under a test runner).
    program_products = "".join(
        f'                .product(name: "{name}", package: "SharkORM"),\n'
        for name in MODULES if name != "SharkDriverConformance")
    targets = ['.target(name: "DocContext", dependencies: [.product(name: "SharkORM", package: "SharkORM")])']
    targets += [
        f""".executableTarget(
            name: "{name}",
            dependencies: [
{program_products}            ]
        )"""
        for name, _, _ in programs]
    targets.append(f""".target(
            name: "DocSnippets",
            dependencies: [
                "DocContext",
{products}                .product(name: "Logging", package: "swift-log"),
            ]
        )""")
    dependencies = ['.package(url: "https://github.com/apple/swift-log.git", from: "1.16.2")']
    return dependencies, targets, [name for name, _, _ in programs], len(sources)


def main():
    if sys.argv[1] == "--check-log":
        check_log(sys.argv[2])
        return
    if sys.argv[1] == "--list":
        repository = os.path.abspath(sys.argv[2])
        for _, _, where, code in collect(repository):
            print(f"== {os.path.relpath(where.split(':')[0], repository)}:{where.split(':')[1]}\n{code}")
        return
    sys.exit(__doc__)


if __name__ == "__main__":
    main()
