// swift-tools-version: 6.1
// A driver written outside SharkORM's package: it sees only the public API and the
// `@_spi(SharkDriver)` seam, and its tests run the conformance suite through the
// SharkDriverConformance product, as any third-party driver's would. scripts/check-remote-driver.sh
// builds and tests it on every CI run.
import PackageDescription

let package = Package(
    name: "RemoteDriver",
    products: [
        .library(name: "RemoteDriver", targets: ["RemoteDriver"])
    ],
    dependencies: [
        // The checkout this example lives in.
        .package(name: "SharkORM", path: "../..")
    ],
    targets: [
        .target(
            name: "RemoteDriver",
            dependencies: [
                .product(name: "SharkORM", package: "SharkORM"),
                .product(name: "SharkMemory", package: "SharkORM"),
            ]
        ),
        .testTarget(
            name: "RemoteDriverTests",
            dependencies: [
                "RemoteDriver",
                .product(name: "SharkDriverConformance", package: "SharkORM"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
