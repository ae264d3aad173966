// swift-tools-version: 6.1
import PackageDescription

// shark-bench: SharkORM's drivers measured against the raw SQLite C API, in one process.
// A package of its own so that the library never depends on benchmark-only code.
let package = Package(
    name: "SharkBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SharkORM", path: "..")
    ],
    targets: [
        // The system sqlite3, called directly by the hand-written baseline loops.
        .systemLibrary(name: "CSQLiteRaw", path: "Sources/CSQLiteRaw"),
        .executableTarget(
            name: "shark-bench",
            dependencies: [
                "CSQLiteRaw",
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "SharkSQLite", package: "SharkORM"),
                .product(name: "SharkMemory", package: "SharkORM"),
            ],
            path: "Sources/shark-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
