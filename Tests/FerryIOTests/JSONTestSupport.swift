import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// The read-buffer sizes every JSON reader test runs with: tiny ones put every split point of a short input
/// inside a string, an escape, a multi-byte character, a number or a literal; the last is the default.
let jsonReadBufferSizes = [1, 2, 3, 7, 64, 256 * 1024]

/// One field copied out of a JSON record.
struct JSONFieldSnapshot: Equatable, CustomStringConvertible {
    var name: String
    var kind: FieldKind
    /// The value's bytes (unescaped text, number text, `true`/`false`, JSON text); empty for null.
    var bytes: [UInt8]

    init(_ field: Field) {
        name = field.name ?? "<no name>"
        kind = field.kind
        bytes = field.withUnsafeBytes { Array($0) }
    }

    init(_ name: String, _ kind: FieldKind, _ text: String) {
        self.name = name
        self.kind = kind
        bytes = Array(text.utf8)
    }

    /// A string field.
    static func string(_ name: String, _ text: String) -> Self { Self(name, .string, text) }
    /// A number field, its text as written.
    static func number(_ name: String, _ text: String) -> Self { Self(name, .number, text) }
    /// A boolean field.
    static func boolean(_ name: String, _ value: Bool) -> Self { Self(name, .boolean, value ? "true" : "false") }
    /// A null field.
    static func null(_ name: String) -> Self { Self(name, .null, "") }
    /// A JSON text field.
    static func json(_ name: String, _ text: String) -> Self { Self(name, .json, text) }

    var description: String { "\(name): \(kind) \(String(decoding: bytes, as: UTF8.self).debugDescription)" }
}

/// A record copied out of a ``JSONReader``.
struct JSONRecordSnapshot: Equatable, CustomStringConvertible {
    var fields: [JSONFieldSnapshot]
    var position: RecordPosition

    init(_ record: Record) {
        fields = (0..<record.count).map { JSONFieldSnapshot(record[$0]) }
        position = record.position
    }

    var description: String { "\(position): \(fields)" }
}

/// The parts of a ``FerryIOError`` a test asserts on.
struct JSONErrorSnapshot: Equatable, CustomStringConvertible {
    var code: FerryIOError.Code
    var line: Int?
    var column: Int?
    var byteOffset: Int?
    var record: Int?
    var message: String
    var isRecoverable: Bool
    /// The skipped record's text, for a recoverable error.
    var recordText: String?

    init(_ error: FerryIOError) {
        code = error.code
        line = error.line
        column = error.column
        byteOffset = error.byteOffset
        record = error.record
        message = error.message
        isRecoverable = error.isRecoverable
        recordText = error.recordText
    }

    var description: String {
        "\(code) at \(line ?? 0):\(column ?? 0) byte \(byteOffset ?? -1) record \(record ?? 0)"
            + "\(isRecoverable ? " (skipped: \(recordText.debugDescription))" : ""): \(message)"
    }
}

/// Everything one read produced: the records, and the error that ended it (if any).
struct JSONReadResult: Equatable, CustomStringConvertible {
    var records: [JSONRecordSnapshot]
    var error: JSONErrorSnapshot?

    /// Every record's fields.
    var fields: [[JSONFieldSnapshot]] { records.map(\.fields) }

    var description: String {
        (records.map { "  \($0)" } + (error.map { ["  error: \($0)"] } ?? [])).joined(separator: "\n")
    }
}

/// Reads `path` to its end (or first error) with one read-buffer size.
func readJSON(
    path: String, layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(), readBufferSize: Int
) throws -> JSONReadResult {
    let reader = try JSONReader(path: path, layout: layout, options: options, readBufferSize: readBufferSize)
    var records: [JSONRecordSnapshot] = []
    do {
        while let record = try reader.next() { records.append(JSONRecordSnapshot(record)) }
        #expect(try reader.next() == nil, "a finished reader keeps returning nil")
        #expect(reader.recordsRead == records.count)
        return JSONReadResult(records: records, error: nil)
    } catch let error as FerryIOError {
        #expect(error.file == path)
        // The reader stays failed: the same error again, no records. (After a skipped NDJSON line it reads on;
        // see ``readJSONThroughBadLines``.)
        if !error.isRecoverable { #expect(throws: FerryIOError.self) { _ = try reader.next() } }
        return JSONReadResult(records: records, error: JSONErrorSnapshot(error))
    }
}

/// What a read that goes on past skipped lines produced: records and skipped lines in input order, and the error
/// that ended it (if any).
struct JSONRecoveringReadResult: Equatable, CustomStringConvertible {
    enum Item: Equatable, CustomStringConvertible {
        case record(JSONRecordSnapshot)
        case skipped(JSONErrorSnapshot)

        var description: String {
            switch self {
            case .record(let record): "\(record)"
            case .skipped(let error): "skipped \(error)"
            }
        }
    }

    var items: [Item]
    var error: JSONErrorSnapshot?

    var records: [JSONRecordSnapshot] {
        items.compactMap { if case .record(let record) = $0 { record } else { nil } }
    }
    var skipped: [JSONErrorSnapshot] {
        items.compactMap { if case .skipped(let error) = $0 { error } else { nil } }
    }

    var description: String {
        (items.map { "  \($0)" } + (error.map { ["  error: \($0)"] } ?? [])).joined(separator: "\n")
    }
}

/// Reads `path` to its end (or first error that ends the input) with one read-buffer size, going on after each
/// recoverable error.
func readJSONThroughBadLines(
    path: String, layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(), readBufferSize: Int
) throws -> JSONRecoveringReadResult {
    let reader = try JSONReader(path: path, layout: layout, options: options, readBufferSize: readBufferSize)
    var items: [JSONRecoveringReadResult.Item] = []
    while true {
        do {
            guard let record = try reader.next() else { break }
            items.append(.record(JSONRecordSnapshot(record)))
        } catch let error as FerryIOError where error.isRecoverable {
            #expect(error.record == items.count + 1, "a skipped line counts as a record")
            items.append(.skipped(JSONErrorSnapshot(error)))
        } catch let error as FerryIOError {
            #expect(throws: FerryIOError.self) { _ = try reader.next() }
            return JSONRecoveringReadResult(items: items, error: JSONErrorSnapshot(error))
        }
    }
    #expect(try reader.next() == nil, "a finished reader keeps returning nil")
    #expect(reader.recordsRead == items.count)
    return JSONRecoveringReadResult(items: items, error: nil)
}

/// ``readJSONThroughBadLines(path:layout:options:readBufferSize:)`` at every size in ``jsonReadBufferSizes``:
/// checks that all reads agree and returns the result.
func readJSONThroughBadLinesAtEverySize(
    path: String, layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONRecoveringReadResult {
    let expected = try readJSONThroughBadLines(
        path: path, layout: layout, options: options, readBufferSize: jsonReadBufferSizes[0])
    for size in jsonReadBufferSizes.dropFirst() {
        let result = try readJSONThroughBadLines(path: path, layout: layout, options: options, readBufferSize: size)
        #expect(
            result == expected, "read-buffer size \(size) differs from size 1 on \(path)",
            sourceLocation: sourceLocation)
    }
    return expected
}

/// Writes `text` to a temporary file and reads it through bad lines at every read-buffer size.
func readJSONThroughBadLines(
    _ text: String, layout: JSONReader.Layout = .ndjson, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONRecoveringReadResult {
    try readJSONThroughBadLines(
        bytes: Array(text.utf8), layout: layout, options: options, sourceLocation: sourceLocation)
}

/// Writes `bytes` to a temporary file and reads it through bad lines at every read-buffer size.
func readJSONThroughBadLines(
    bytes: [UInt8], layout: JSONReader.Layout = .ndjson, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONRecoveringReadResult {
    try TestSupport.withTemporaryFolder { folder in
        let path = try TestSupport.write(bytes, to: "input.ndjson", in: folder)
        return try readJSONThroughBadLinesAtEverySize(
            path: path, layout: layout, options: options, sourceLocation: sourceLocation)
    }
}

/// Reads `path` with every size in ``jsonReadBufferSizes``, checks that all reads agree, and returns the result.
func readJSONAtEverySize(
    path: String, layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONReadResult {
    let expected = try readJSON(path: path, layout: layout, options: options, readBufferSize: jsonReadBufferSizes[0])
    for size in jsonReadBufferSizes.dropFirst() {
        let result = try readJSON(path: path, layout: layout, options: options, readBufferSize: size)
        #expect(
            result == expected, "read-buffer size \(size) differs from size 1 on \(path)",
            sourceLocation: sourceLocation)
    }
    return expected
}

/// Writes `text` to a temporary file and reads it at every read-buffer size (see ``readJSONAtEverySize``).
func readJSON(
    _ text: String, layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONReadResult {
    try readJSON(bytes: Array(text.utf8), layout: layout, options: options, sourceLocation: sourceLocation)
}

/// Writes `bytes` to a temporary file and reads it at every read-buffer size (see ``readJSONAtEverySize``).
func readJSON(
    bytes: [UInt8], layout: JSONReader.Layout, options: JSONReaderOptions = JSONReaderOptions(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONReadResult {
    try TestSupport.withTemporaryFolder { folder in
        let path = try TestSupport.write(bytes, to: "input.json", in: folder)
        return try readJSONAtEverySize(path: path, layout: layout, options: options, sourceLocation: sourceLocation)
    }
}

/// The files of a corpus folder, sorted by name, with their bytes.
func corpusFiles(in folder: URL, extension fileExtension: String = "json") throws -> [(name: String, path: String)] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path)
        .filter { $0.hasSuffix("." + fileExtension) }
        .sorted()
        .map { ($0, folder.appendingPathComponent($0).path) }
}

/// The bytes of a file.
func fileBytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

/// What ``JSONDocument/validate(_:maxDepth:)`` says about `bytes`: `nil` when accepted, else the error.
func validationError(_ bytes: [UInt8], maxDepth: Int = 64) -> FerryIOError? {
    bytes.withUnsafeBytes { buffer in
        do {
            try JSONDocument.validate(buffer, maxDepth: maxDepth)
            return nil
        } catch let error as FerryIOError {
            return error
        } catch {
            Issue.record("validate threw a non-FerryIOError: \(error)")
            return FerryIOError(.io, "unexpected error type")
        }
    }
}

/// ``JSONDocument/compact(_:maxDepth:)`` of `bytes`.
func compactJSON(_ bytes: [UInt8], maxDepth: Int = 64) throws -> [UInt8] {
    try bytes.withUnsafeBytes { try JSONDocument.compact($0, maxDepth: maxDepth) }
}
