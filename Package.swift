// swift-tools-version: 6.1
import PackageDescription

/// Settings every Ferry target shares: Swift 6 language mode and imports that stay internal unless marked.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Ferry",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "FerryIO", targets: ["FerryIO"]),
        .library(name: "FerrySQLite", targets: ["FerrySQLite"]),
        .library(name: "FerryStore", targets: ["FerryStore"]),
        .library(name: "FerryPipeline", targets: ["FerryPipeline"]),
        .executable(name: "ferry", targets: ["ferry"]),
        // Typed classes generated from a target's models at build time (`ferry generate swift` does it by hand).
        .plugin(name: "FerryModelPlugin", targets: ["FerryModelPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // `swift package generate-documentation` builds the DocC catalogs; no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries: a module map and a shim header each, nothing else.
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibCSV", providers: [.apt(["libcsv-dev"])]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CGlibcExtras"),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CSnappy", providers: [.apt(["libsnappy-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),

        .target(
            name: "FerrySQLite",
            dependencies: ["CSQLite3", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FerryStore",
            dependencies: [
                "FerrySQLite", "CLibCrypto", .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // libpq's wrapper: connections, statements, COPY, advisory locks; the only user of PQ* functions.
            name: "FerryPostgres",
            dependencies: ["CLibPQ"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FerryIO",
            dependencies: ["CGlibcExtras", "CLibCSV", "CZstd", "CSnappy"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FerryPipeline",
            dependencies: [
                // FerrySQLite: only for the pipeline's own tables (Runtime/: the run ledger, export positions), and
                // for whether a store can be written (DatabaseFileAccess).
                "FerryIO", "FerryStore", "FerrySQLite", "FerryPostgres",
                .product(name: "Logging", package: "swift-log"), .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FerryCodegen",
            dependencies: ["FerryStore"],
            swiftSettings: strictSettings
        ),
        // The plugin's tool: the generator alone, so a package using the plugin does not build all of `ferry`.
        .executableTarget(
            name: "FerryModelGenerator",
            dependencies: ["FerryCodegen", "FerryStore"],
            swiftSettings: strictSettings
        ),
        .plugin(
            name: "FerryModelPlugin",
            capability: .buildTool(),
            dependencies: ["FerryModelGenerator"]
        ),
        .executableTarget(
            name: "ferry",
            dependencies: [
                "CGlibcExtras", "FerryIO", "FerrySQLite", "FerryStore", "FerryPipeline", "FerryCodegen",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FerryTestSupport",
            dependencies: ["FerryIO", "FerryPostgres", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),

        .testTarget(
            name: "FerryIOTests",
            dependencies: ["FerryIO", "FerryTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FerrySQLiteTests",
            dependencies: ["FerrySQLite", "FerryTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FerryStoreTests",
            dependencies: ["FerryStore", "FerryTestSupport"],
            // Model files read by path (TestSupport.packageRoot); Xcode models must not be compiled as resources.
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FerryPipelineTests",
            dependencies: ["FerryPipeline", "FerryStore", "FerryIO", "FerryPostgres", "FerryTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FerryCodegenTests",
            dependencies: ["FerryCodegen", "FerryStore", "FerryTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FerryCLITests",
            dependencies: [
                "ferry", "FerryIO", "FerrySQLite", "FerryStore", "FerryPipeline", "FerryPostgres", "FerryTestSupport",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
