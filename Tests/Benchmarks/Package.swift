// swift-tools-version: 6.1
// Ferry's benchmarks: a package of their own so that `swift test` in the main package never builds them.
// Run through ./compare.sh, which also times the `ferry` binary against the C reference.
import PackageDescription

let package = Package(
    name: "FerryBenchmarks",
    dependencies: [
        .package(name: "Ferry", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "ferry-bench",
            dependencies: [
                .product(name: "FerryIO", package: "Ferry"), .product(name: "FerryStore", package: "Ferry"),
            ],
            swiftSettings: [.enableUpcomingFeature("InternalImportsByDefault")]
        )
    ],
    swiftLanguageModes: [.v6]
)
