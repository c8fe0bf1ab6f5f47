import FerryTestSupport
import Foundation
import Testing

/// A store of generated products (sku, name, quantity, description of 4 to 15 words) for the Parquet command tests.
enum ProductStoreFixture {
    /// Calls `body` with a temporary folder and a store in it holding `rows` products, imported from a generated CSV
    /// by the built `ferry import`.
    static func withStore(rows: Int, _ body: (URL, String) throws -> Void) throws {
        try TestSupport.withTemporaryFolder { folder in
            let words = [
                "maple", "towel", "router", "golden", "shelf", "wrench", "lantern", "scarf", "bamboo", "glove",
                "frame", "fork", "solid", "soap", "cover", "belt", "chair", "hose", "charger", "jacket", "mirror",
            ]
            var state: UInt64 = 7
            func next() -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int(state >> 33)
            }
            var csv = "sku,name,quantity,description\n"
            for row in 0..<rows {
                let description = (0..<(4 + next() % 12)).map { _ in words[next() % words.count] }
                    .joined(separator: " ")
                csv += "SKU-\(row * 7919 % 1_000_003),item \(next() % 311),\(next() % 97),\(description)\n"
            }
            let source = folder.appendingPathComponent("products.csv")
            try csv.write(to: source, atomically: true, encoding: .utf8)
            let store = folder.appendingPathComponent("store.sqlite").path
            let imported = try BuiltCommand(product: "ferry").run([
                "import", "--quiet", "--entity", "products", "--key", "sku", "--store", store, source.path,
            ])
            #expect(imported.status == 0, "\(imported.standardError)")
            try body(folder, store)
        }
    }
}
