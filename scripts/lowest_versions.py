"""The lowest dependency versions SharkORM's Package.swift claims, checked inside the
documentation package (scripts/documentation_package.py): one package outside this one
builds the documentation's code, this check and the example driver, so the macro library and
the dependencies build once.

- The package pins swift-syntax 600.0.1 and swift-crypto 3.12.3 exactly, so every example,
  guide and program of the documentation builds with them: the claimed ranges are ones the
  code builds with, not only the newest releases.
- Its LowestVersions program (scripts/lowest-versions/main.swift) uses the @Model macro and
  a sealed change log, through SharkSyncOutside: SharkSync's sources built as a module of
  this other package, over a zlib module map of its own. `package` declarations of the core
  are invisible from another package, so this proves sync stands on the core's public and
  `@_spi` seams only, as a replication engine outside the repository would.
"""
import os
import re

import doc_snippets

PINS = {
    "swift-syntax": ("https://github.com/swiftlang/swift-syntax.git", "600.0.1", "SwiftSyntax"),
    "swift-crypto": ("https://github.com/apple/swift-crypto.git", "3.12.3", "Crypto"),
}


def generate(package, repository):
    """Writes the LowestVersions program, SharkSyncOutside and CZlibOutside into `package`'s
    Sources and returns what the manifest needs: (dependencies, targets, program name)."""
    sources = os.path.join(package, "Sources")
    sync = os.path.join(sources, "SharkSyncOutside")
    os.makedirs(sync, exist_ok=True)
    written = set()
    for folder, _, files in os.walk(os.path.join(repository, "Modules", "SharkSync")):
        for name in files:
            if name.endswith(".swift"):
                with open(os.path.join(folder, name), encoding="utf-8") as source:
                    text = re.sub(r"\bCZlib\b", "CZlibOutside", source.read())
                doc_snippets.write_if_changed(os.path.join(sync, name), text)
                written.add(name)
    for name in os.listdir(sync):
        if name not in written:
            os.remove(os.path.join(sync, name))
    zlib = os.path.join(sources, "CZlibOutside")
    os.makedirs(zlib, exist_ok=True)
    with open(os.path.join(repository, "Modules", "CZlib", "shim.h"), encoding="utf-8") as shim:
        doc_snippets.write_if_changed(os.path.join(zlib, "shim.h"), shim.read())
    with open(os.path.join(repository, "Modules", "CZlib", "module.modulemap"), encoding="utf-8") as modulemap:
        text = re.sub(r"^module CZlib ", "module CZlibOutside ", modulemap.read(), flags=re.M)
        doc_snippets.write_if_changed(os.path.join(zlib, "module.modulemap"), text)
    program = os.path.join(sources, "LowestVersions")
    os.makedirs(program, exist_ok=True)
    with open(os.path.join(repository, "scripts", "lowest-versions", "main.swift"), encoding="utf-8") as main:
        doc_snippets.write_if_changed(os.path.join(program, "main.swift"), main.read())

    dependencies = [f'.package(url: "{url}", exact: "{version}")' for url, version, _ in PINS.values()]
    # The pinned packages' products are named so that the pins take part in resolution.
    pinned_products = "".join(
        f'                .product(name: "{product}", package: "{name}"),\n'
        for name, (_, _, product) in PINS.items())
    targets = [
        '.systemLibrary(name: "CZlibOutside")',
        """.target(
            name: "SharkSyncOutside",
            dependencies: [
                "CZlibOutside",
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        )""",
        f""".executableTarget(
            name: "LowestVersions",
            dependencies: [
                "SharkSyncOutside",
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "SharkSQLite", package: "SharkORM"),
                .product(name: "SharkMemory", package: "SharkORM"),
{pinned_products}            ]
        )""",
    ]
    return dependencies, targets, "LowestVersions"

