// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "SharkORM",
    // Deployment minimums for Apple platforms, not a claim of support: what is built and tested
    // is Linux (README.md, "Platforms").
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "SharkORM", targets: ["SharkORM"]),
        .library(name: "SharkSQLite", targets: ["SharkSQLite"]),
        .library(name: "SharkMemory", targets: ["SharkMemory"]),
        .library(name: "SharkSQLCipher", targets: ["SharkSQLCipher"]),
        .library(name: "SharkSync", targets: ["SharkSync"]),
        .library(name: "SharkPostgres", targets: ["SharkPostgres"]),
        .library(name: "SharkHub", targets: ["SharkHub"]),
        .library(name: "SharkHubClient", targets: ["SharkHubClient"]),
        .library(name: "SharkHubAPI", targets: ["SharkHubAPI"]),
        // The conformance suite, for a driver's test target: every check on its driver with one
        // parameterized test (docs/architecture.md, "Writing a driver").
        .library(name: "SharkDriverConformance", targets: ["SharkDriverConformance"]),
        // For driver authors and benchmarks in other packages: the sqlite3 function table and its
        // loader. (The Swift driver API is `@_spi(SharkDriver)` in SharkORM.)
        .library(name: "SharkCSQLite", targets: ["CSQLite"]),
        .executable(name: "shark", targets: ["shark"]),
    ],
    // As wide as the code allows: `from:` never spans a major version, so swift-syntax (one major
    // a Swift release) and swift-crypto name explicit ranges. scripts/lowest_versions.py
    // builds a package with each range's lowest version pinned.
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax.git", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // The API reference: `swift package generate-documentation` (scripts/docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // Seeded property-based tests with shrinking (the value rules' differential test).
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        // The PostgreSQL driver's client (SharkPostgres), and the TLS settings it takes.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // The sync hub's HTTP server (SharkHub); its default traits (swift-configuration) are
        // not needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        // The sync hub's client (SharkHubClient), and the event loops and thread pool under it.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Graceful shutdown of the hub's server, on a signal or a cancelled task.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // What the hub counts (swift-metrics), and `shark serve`'s Prometheus endpoint for it.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // The backend-agnostic core: models, schema, values, queries, the Store and the Driver protocol.
        .target(
            name: "SharkORM",
            dependencies: [
                "SharkMacros",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Modules/SharkORM"
        ),
        // The @Model macro, a compiler plugin.
        .macro(
            name: "SharkMacros",
            dependencies: [
                "SharkMacroExpansions",
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            path: "Modules/SharkMacros"
        ),
        // What the macros expand to, as a library: the tests link it rather than the plugin
        // (see Modules/SharkMacros/Plugin.swift).
        .target(
            name: "SharkMacroExpansions",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            path: "Modules/SharkMacroExpansions"
        ),
        // A table of sqlite3 function pointers and the loader that fills it from an isolated library.
        .target(
            name: "CSQLite",
            path: "Modules/CSQLite",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // Fills the CSQLite table from the system libsqlite3 linked into the binary.
        .target(
            name: "CSQLiteSystem",
            dependencies: ["CSQLite"],
            path: "Modules/CSQLiteSystem",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        // What the SQLite and SQLCipher drivers share: connections, statements, SQL generation, migration.
        .target(
            name: "SharkSQLiteCore",
            dependencies: ["SharkORM", "CSQLite"],
            path: "Modules/SharkSQLiteCore"
        ),
        // The embedded default driver over the system SQLite.
        .target(
            name: "SharkSQLite",
            dependencies: ["SharkORM", "SharkSQLiteCore", "CSQLiteSystem"],
            path: "Modules/SharkSQLite"
        ),
        // The encrypted driver: SharkSQLiteCore over an isolated libsqlcipher.
        .target(
            name: "SharkSQLCipher",
            dependencies: ["SharkORM", "SharkSQLiteCore", "CSQLite"],
            path: "Modules/SharkSQLCipher"
        ),
        // The pure-Swift in-memory engine.
        .target(
            name: "SharkMemory",
            dependencies: ["SharkORM"],
            path: "Modules/SharkMemory"
        ),
        // The system zlib, for the compressed frames of change logs.
        .systemLibrary(
            name: "CZlib",
            path: "Modules/CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The PostgreSQL driver: the same models on a server database (postgres-nio), its calls
        // awaited on a thread of its own behind the blocking seam.
        .target(
            name: "SharkPostgres",
            dependencies: [
                "SharkORM",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Modules/SharkPostgres"
        ),
        // Change capture, the hybrid logical clock, the change-log file, export and import.
        // Built on the core's write pipeline, so it works on every driver; it imports none.
        .target(
            name: "SharkSync",
            dependencies: [
                "SharkORM", "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Modules/SharkSync"
        ),
        // What the hub and its clients share: device tokens and the API's JSON bodies.
        .target(
            name: "SharkHubAPI",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            path: "Modules/SharkHubAPI"
        ),
        // The sync hub: spaces, device tokens and sealed files in a store of its own, served
        // over HTTP (Hummingbird); it never holds a space's key.
        .target(
            name: "SharkHub",
            dependencies: [
                "SharkORM", "SharkSync", "SharkHubAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Modules/SharkHub"
        ),
        // A device's side of the hub: SyncClient pushes and pulls sealed files over HTTP
        // (async-http-client), resuming uploads and retrying with backoff.
        .target(
            name: "SharkHubClient",
            dependencies: [
                "SharkORM", "SharkSync", "SharkHubAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Modules/SharkHubClient"
        ),
        // The conformance suite as checks a driver's tests run (ConformanceSuite.cases(for:)).
        .target(
            name: "SharkDriverConformance",
            dependencies: [
                "SharkORM",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            path: "Modules/SharkDriverConformance"
        ),
        // The tour: the README's main job (an executable of this package only, not a product).
        .executableTarget(
            name: "shark-tour",
            dependencies: ["SharkORM", "SharkSQLite", "SharkMemory", "SharkSQLCipher", "SharkSync"],
            path: "Examples/SharkTour"
        ),
        // The `shark` command line: database files and change logs without the app's model types.
        .executableTarget(
            name: "shark",
            dependencies: [
                "SharkORM", "SharkSQLite", "SharkSQLCipher", "SharkSync", "SharkSQLiteCore", "SharkPostgres",
                "SharkHub", "SharkHubClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tools/shark"
        ),
        .testTarget(
            name: "SharkMacrosTests",
            dependencies: [
                // Not the plugin: a test target on a macro target is built for the host.
                "SharkMacroExpansions",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            path: "Tests/SharkMacrosTests"
        ),
        .testTarget(
            name: "SharkSQLiteCoreTests",
            dependencies: ["SharkSQLiteCore", "SharkSQLite", "CSQLite"],
            path: "Tests/SharkSQLiteCoreTests"
        ),
        // The core's own tests: what no driver takes part in (the predicate parser, UUIDs,
        // traces' text, the executor of drivers whose calls suspend).
        .testTarget(
            name: "SharkORMTests",
            dependencies: ["SharkORM", "SharkDriverConformance"],
            path: "Tests/SharkORMTests"
        ),
        // The drivers of this repository, for the tests that run on several at once, and the
        // stores of the throw-away PostgreSQL server scripts/test.sh starts.
        .target(
            name: "SharkTestSupport",
            dependencies: [
                "SharkORM", "SharkMemory", "SharkSQLite", "SharkSQLCipher", "SharkPostgres", "SharkDriverConformance",
            ],
            path: "Tests/SharkTestSupport"
        ),
        // Each driver runs the conformance suite in its own test target, as a driver outside
        // the repository does, beside its own tests: the memory engine's indexes, snapshots and
        // differential runs against SQLite; SQLite's files (made by the shells, damaged, not
        // databases); SQLCipher's keys.
        .testTarget(
            name: "SharkMemoryTests",
            dependencies: ["SharkDriverConformance", "SharkMemory", "SharkSQLite", "SharkTestSupport"],
            path: "Tests/SharkMemoryTests"
        ),
        .testTarget(
            name: "SharkSQLiteTests",
            dependencies: ["SharkDriverConformance", "SharkSQLite", "SharkSQLCipher", "SharkTestSupport"],
            path: "Tests/SharkSQLiteTests"
        ),
        .testTarget(
            name: "SharkSQLCipherTests",
            dependencies: ["SharkDriverConformance", "SharkSQLCipher", "SharkSQLite", "SharkTestSupport"],
            path: "Tests/SharkSQLCipherTests"
        ),
        // Sync on every driver of the repository: export, import, convergence, damaged files.
        .testTarget(
            name: "SharkSyncTests",
            dependencies: [
                "SharkSync", "SharkTestSupport", "SharkDriverConformance",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/SharkSyncTests"
        ),
        // The PostgreSQL driver against a throw-away server scripts/test.sh starts: the
        // conformance suite and the driver's own tests (configuration, TLS, many writers).
        .testTarget(
            name: "SharkPostgresTests",
            dependencies: [
                "SharkDriverConformance", "SharkPostgres", "SharkSync", "SharkTestSupport", "shark-postgres-transfers",
            ],
            path: "Tests/SharkPostgresTests"
        ),
        // One process of the many-writer test: threads moving money between accounts.
        .executableTarget(
            name: "shark-postgres-transfers",
            dependencies: ["SharkORM", "SharkPostgres", "SharkSync"],
            path: "Tests/PostgresTransferWorker"
        ),
        // The hub's API in process (HummingbirdTesting), over each driver of its store.
        .testTarget(
            name: "SharkHubTests",
            dependencies: [
                "SharkHub", "SharkHubClient", "SharkSync", "SharkTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/SharkHubTests"
        ),
        // Runs the `shark` executable as a subprocess against real files.
        .testTarget(
            name: "SharkCommandLineTests",
            dependencies: [
                "shark", "SharkORM", "SharkSQLite", "SharkSQLCipher", "SharkMemory", "SharkSync", "SharkPostgres",
                "SharkHubClient",
            ],
            path: "Tests/SharkCommandLineTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
