// swift-tools-version: 6.1
import PackageDescription

// shark-bench: SharkORM's drivers measured against the raw SQLite and SQLCipher C APIs, GRDB
// records and a Dictionary, in one process; and on a PostgreSQL server, against raw
// postgres-nio and Fluent (FluentKit with its PostgreSQL driver, without Vapor).
// shark-side-by-side: SQLite, SQLCipher and GRDB in one binary, the case where a naive load
// of SQLCipher crashes.
// A package of its own so that the library never depends on GRDB or benchmark-only code.
let package = Package(
    name: "SharkBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "SharkORM", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // The PostgreSQL family: raw postgres-nio, and Fluent without Vapor, at the versions
        // docs/benchmarks.md names.
        .package(url: "https://github.com/vapor/postgres-nio.git", exact: "1.33.2"),
        .package(url: "https://github.com/vapor/fluent-kit.git", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver.git", exact: "2.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "shark-bench",
            dependencies: [
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "SharkSQLite", package: "SharkORM"),
                .product(name: "SharkMemory", package: "SharkORM"),
                .product(name: "SharkSQLCipher", package: "SharkORM"),
                .product(name: "SharkSync", package: "SharkORM"),
                .product(name: "SharkPostgres", package: "SharkORM"),
                .product(name: "SharkCSQLite", package: "SharkORM"),
                .product(name: "SharkHub", package: "SharkORM"),
                .product(name: "SharkHubClient", package: "SharkORM"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                "CHeapStats",
            ],
            path: "Sources/shark-bench"
        ),
        // How much the C heap holds now (glibc's mallinfo2, macOS's zone statistics): the
        // peak memory of each backend.
        .target(name: "CHeapStats", path: "Sources/CHeapStats"),
        .executableTarget(
            name: "shark-side-by-side",
            dependencies: [
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "SharkSQLite", package: "SharkORM"),
                .product(name: "SharkSQLCipher", package: "SharkORM"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/shark-side-by-side"
        ),
    ],
    swiftLanguageModes: [.v6]
)
