import FerryIO
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

/// A step reads each input's header from the file once, however many of its phases ask (validation, the schema
/// contract, planning): the spec and its copies share what was read.
struct InputHeadersTests {
    @Test func aSpecAndItsCopiesReadAnInputsHeaderOnceAndAnotherInputAfresh() throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("a.csv")
        let second = folder.appendingPathComponent("b.csv")
        try Data("sku,name\nA,x\n".utf8).write(to: first)
        try Data("sku,price\nB,1\n".utf8).write(to: second)
        let spec = ImportSpec(entity: "Product", sources: [first.path, second.path])
        #expect(try spec.header(ofInput: 0) == ["sku", "name"])

        // The file changes after the step read it: the step and its copies keep what they read.
        try Data("sku,colour\nA,red\n".utf8).write(to: first)
        let copy = spec
        #expect(try copy.header(ofInput: 0) == ["sku", "name"])
        #expect(try spec.header(ofInput: 1) == ["sku", "price"])

        // A new spec is a new step, and a copy naming other inputs or another dialect reads them.
        #expect(try ImportSpec(entity: "Product", sources: [first.path]).header(ofInput: 0) == ["sku", "colour"])
        var semicolons = spec
        semicolons.dialect = CSVDialect(delimiter: UInt8(ascii: ";"))
        #expect(try semicolons.header(ofInput: 0) == ["sku,colour"])
        #expect(try spec.header(ofInput: 2) == nil, "past the inputs")
    }
}
