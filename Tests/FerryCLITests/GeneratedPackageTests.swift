import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// Generated code, built and run for real: `ferry generate swift` and the build-tool plugin write classes into a
/// package that depends on this checkout, `swift build` compiles it warning-free in Swift 6 mode, and its programs
/// insert, save and fetch through the typed API on real stores.
///
/// It builds FerryStore again inside the temporary package (a few minutes on two cores the first time; the build
/// folder is kept under the temporary folder, so later runs only rebuild what changed). Ferry's own dependencies
/// resolve as they do for this checkout, from the machine's package copies, with no network.
@Suite struct GeneratedPackageTests {
    @Test func generatedClassesBuildAndRunAgainstARealStore() throws {
        let package = GeneratedPackageFixture.folder
        let manager = FileManager.default
        // Everything but the build folder is written afresh.
        let sources = package.appendingPathComponent("Sources")
        try? manager.removeItem(at: sources)
        let catalogApp = sources.appendingPathComponent("CatalogApp")
        let xcodeApp = sources.appendingPathComponent("XcodeApp")
        let shopApp = sources.appendingPathComponent("ShopApp")
        for target in [catalogApp, xcodeApp, shopApp] {
            try manager.createDirectory(at: target, withIntermediateDirectories: true)
        }
        try write(GeneratedPackageFixture.manifest(root: TestSupport.packageRoot), to: package, "Package.swift")
        try write(GeneratedPackageFixture.catalogProduct, to: catalogApp, "Product.swift")
        try write(GeneratedPackageFixture.catalogMain, to: catalogApp, "main.swift")
        try write(GeneratedPackageFixture.xcodeDog, to: xcodeApp, "Dog.swift")
        try write(GeneratedPackageFixture.xcodeMain, to: xcodeApp, "main.swift")
        try write(GeneratedPackageFixture.shopModel, to: shopApp, "Shop.ferrymodel.yml")
        try write(GeneratedPackageFixture.shopMain, to: shopApp, "main.swift")
        try manager.copyItem(
            at: GeneratedPackageFixture.xcodeModel, to: xcodeApp.appendingPathComponent("Catalog.xcdatamodeld"))

        // The command: machine files in Generated/, human files beside main.swift, the hand-written one kept.
        let generated = catalogApp.appendingPathComponent("Generated")
        let generate = try BuiltCommand(product: "ferry").run([
            "generate", "swift", GeneratedPackageFixture.catalogModel.path, "--output", generated.path,
            "--human-output", catalogApp.path, "--access", "public",
        ])
        #expect(generate.status == 0, "\(generate.standardError)")
        #expect(generate.standardOutput.contains("kept \(catalogApp.appendingPathComponent("Product.swift").path)"))
        #expect(
            try manager.contentsOfDirectory(atPath: generated.path).sorted() == [
                "CatalogModel.swift", "_Category.swift", "_Order.swift", "_OrderItem.swift", "_Product.swift",
            ])
        #expect(
            try manager.contentsOfDirectory(atPath: catalogApp.path).sorted() == [
                "Category.swift", "Generated", "Order.swift", "OrderItem.swift", "Product.swift", "main.swift",
            ])
        #expect(
            try String(contentsOf: catalogApp.appendingPathComponent("Product.swift"), encoding: .utf8)
                == GeneratedPackageFixture.catalogProduct)

        let swift = BuiltCommand(url: URL(fileURLWithPath: "/usr/bin/env"))
        let scratch = package.appendingPathComponent(".build").path
        let build = try swift.run(["swift", "build", "--package-path", package.path, "--scratch-path", scratch])
        try #require(build.status == 0, "swift build failed:\n\(build.standardOutput)\n\(build.standardError)")
        // The model files are the plugin's: SwiftPM must not take them for unhandled resources.
        #expect(!(build.standardOutput + build.standardError).contains("unhandled"))
        let binaries = try swift.run([
            "swift", "build", "--package-path", package.path, "--scratch-path", scratch, "--show-bin-path",
        ]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)

        try TestSupport.withTemporaryFolder { stores in
            let catalogHash = try ModelFile(contentsOf: GeneratedPackageFixture.catalogModel.path).model.versionHash
            let catalog = try BuiltCommand(url: URL(fileURLWithPath: binaries + "/CatalogApp"))
                .run([stores.appendingPathComponent("catalog.sqlite").path])
            #expect(catalog.status == 0, "\(catalog.standardError)")
            #expect(
                catalog.standardOutput.split(separator: "\n") == [
                    "product SKU-0001 Green tea 4.5 active=true category=Tea created=1000.0",
                    "product SKU-0002 Black tea 9.9 active=false category=Tea created=1000.0",
                    "cheap [\"SKU-0001\"]",
                    "expensive [\"SKU-0002\"]",
                    "category Tea products=[\"SKU-0001\", \"SKU-0002\"] productCount=2",
                    "unpaid ORD-1 Ada total=9 items=[\"SKU-0001x2\"]",
                    "model \(catalogHash) \(catalogHash)",
                ])

            let xcodeHash = try ModelFile(contentsOf: GeneratedPackageFixture.xcodeModel.path).model.versionHash
            let xcode = try BuiltCommand(url: URL(fileURLWithPath: binaries + "/XcodeApp"))
                .run([stores.appendingPathComponent("xcode.sqlite").path])
            #expect(xcode.status == 0, "\(xcode.standardError)")
            #expect(
                xcode.standardOutput.split(separator: "\n") == [
                    "product SKU-0042 price=0.1 active=true stock=7 rating=4.5 weight=1.5 tags=[\"green\", \"loose\"] "
                        + "category=Tea lower=sku-0042 homepage=https://example.com/ "
                        + "identifier=123E4567-E89B-12D3-A456-426614174000 launched=1767225600.0 orderItems=2",
                    "order 1 items=[3, 1] itemCount=2 total=8",
                    "animal Rex the Collie",
                    "model \(xcodeHash) \(xcodeHash)",
                ])

            let shop = try BuiltCommand(url: URL(fileURLWithPath: binaries + "/ShopApp"))
                .run([stores.appendingPathComponent("shop.sqlite").path])
            #expect(shop.status == 0, "\(shop.standardError)")
            #expect(
                shop.standardOutput.split(separator: "\n") == [
                    "note C class C about C sizes=[\"height:2\", \"width:1\"] extra=[\"C\", \"C\"] tags=[\"urgent\"]",
                    "note A class A about A sizes=[\"height:2\", \"width:1\"] extra=[\"A\", \"A\"] tags=[\"urgent\"]",
                    "tag [\"urgent\"] notes=[\"A\", \"C\"]",
                ])
        }
    }

    private func write(_ text: String, to folder: URL, _ name: String) throws {
        try Data(text.utf8).write(to: folder.appendingPathComponent(name))
    }
}
