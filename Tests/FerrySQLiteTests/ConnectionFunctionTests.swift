import FerryTestSupport
import Testing

@testable import FerrySQLite

/// Scalar SQL functions written in Swift and registered on a connection.
struct ConnectionFunctionTests {
    struct Refusal: Error, CustomStringConvertible {
        var description: String { "refused by the function" }
    }

    @Test func aRegisteredFunctionIsCalledWithItsArgumentsAndReturnsItsValue() throws {
        let connection = try Connection(path: ":memory:")
        try connection.createFunction("joined", argumentCount: 2) { arguments in
            .text(arguments.map(\.description).joined(separator: "|"))
        }
        let row = try connection.prepare("SELECT joined(1, 'a'), joined(NULL, x'00ff')").fetchOne()
        #expect(row == Row([.text("1|'a'"), .text("NULL|x'00ff'")]))
    }

    @Test func aThrowingFunctionFailsTheStatementWithItsMessage() throws {
        let connection = try Connection(path: ":memory:")
        try connection.createFunction("refuse", argumentCount: 0) { _ in throw Refusal() }
        #expect {
            try connection.prepare("SELECT refuse()").fetchOne()
        } throws: { error in
            (error as? SQLiteError)?.message == "refused by the function"
        }
    }

    @Test func reRegisteringReplacesTheFunction() throws {
        let connection = try Connection(path: ":memory:")
        try connection.createFunction("answer", argumentCount: 0) { _ in .integer(1) }
        try connection.createFunction("answer", argumentCount: 0) { _ in .integer(42) }
        #expect(try connection.prepare("SELECT answer()").fetchOne() == Row([.integer(42)]))
    }

    @Test func emptyTextAndBlobResultsAreNotNull() throws {
        let connection = try Connection(path: ":memory:")
        try connection.createFunction("emptyText", argumentCount: 0) { _ in .text("") }
        try connection.createFunction("emptyBlob", argumentCount: 0) { _ in .blob([]) }
        let row = try connection.prepare("SELECT emptyText() IS NULL, emptyBlob() IS NULL, length(emptyBlob())")
            .fetchOne()
        #expect(row == Row([.integer(0), .integer(0), .integer(0)]))
    }
}
