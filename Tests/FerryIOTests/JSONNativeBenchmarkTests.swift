import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Milo Yip's nativejson-benchmark conformance data (`shared/conformance/nativejson-benchmark`), files as they are.
///
/// Round trips are byte for byte: Ferry keeps every number's and string's text as written, so compact input must
/// come back unchanged, through ``JSONDocument/compact(_:maxDepth:)`` and through a reader and writer.
@Suite("nativejson-benchmark", .timeLimit(.minutes(2)))
struct JSONNativeBenchmarkTests {
    static let dataFolder = TestSupport.conformance("nativejson-benchmark").appendingPathComponent("data")
    static let roundtripFolder = dataFolder.appendingPathComponent("roundtrip")
    static let checkerFolder = dataFolder.appendingPathComponent("jsonchecker")

    static func files(in folder: URL, prefix: String = "") -> [String] {
        ((try? corpusFiles(in: folder)) ?? []).map(\.name).filter { $0.hasPrefix(prefix) }
    }

    @Test("The data sets hold 27 round-trip files, 3 pass files and 33 fail files")
    func dataSetsAreComplete() {
        #expect(Self.files(in: Self.roundtripFolder).count == 27)
        #expect(Self.files(in: Self.checkerFolder, prefix: "pass").count == 3)
        #expect(Self.files(in: Self.checkerFolder, prefix: "fail").count == 33)
    }

    @Test("Compacting a round-trip file gives back its exact bytes", arguments: files(in: roundtripFolder))
    func compactRoundTrip(name: String) throws {
        let bytes = try fileBytes(Self.roundtripFolder.appendingPathComponent(name).path)
        #expect(try compactJSON(bytes) == bytes, "\(name)")
    }

    /// The exporter side: the document as a record's field, read and written again as NDJSON.
    @Test("A round-trip file survives reading and writing as a record's field", arguments: files(in: roundtripFolder))
    func readerWriterRoundTrip(name: String) throws {
        let bytes = try fileBytes(Self.roundtripFolder.appendingPathComponent(name).path)
        let line = Array(#"{"v":"#.utf8) + bytes + Array("}\n".utf8)
        try TestSupport.withTemporaryFolder { folder in
            let input = try TestSupport.write(line, to: "in.ndjson", in: folder)
            let output = folder.appendingPathComponent("out.ndjson").path
            let reader = try JSONReader(path: input, layout: .ndjson)
            let writer = try JSONWriter(path: output, layout: .ndjson)
            try writer.begin(columns: ["v"])
            while let record = try reader.next() { try writer.write(record) }
            try writer.finish()
            #expect(try fileBytes(output) == line, "\(name)")
        }
    }

    @Test("A JSON_checker pass file is accepted", arguments: files(in: checkerFolder, prefix: "pass"))
    func checkerPass(name: String) throws {
        let error = validationError(try fileBytes(Self.checkerFolder.appendingPathComponent(name).path))
        #expect(error == nil, "\(name): \(error.map { "\($0)" } ?? "")")
    }

    /// The two `_EXCLUDE` files are JSON_checker quirks (see the corpus README) and are tested separately below.
    @Test(
        "A JSON_checker fail file is rejected",
        arguments: files(in: checkerFolder, prefix: "fail").filter { !$0.contains("EXCLUDE") })
    func checkerFail(name: String) throws {
        let error = validationError(try fileBytes(Self.checkerFolder.appendingPathComponent(name).path))
        #expect(error != nil, "\(name) was accepted")
    }

    /// `fail01_EXCLUDE.json` is a lone string: invalid for the old JSON_checker, valid since RFC 7159. Ferry accepts
    /// it as a document, and its readers refuse it cleanly as "not records", not as a syntax error.
    @Test("A top-level string is a valid document but not records")
    func topLevelStringIsValidButNotRecords() throws {
        let path = Self.checkerFolder.appendingPathComponent("fail01_EXCLUDE.json").path
        #expect(validationError(try fileBytes(path)) == nil)
        let result = try readJSONAtEverySize(path: path, layout: .automatic)
        #expect(result.records.isEmpty)
        #expect(result.error?.code == .notAnObject)
        #expect(result.error?.line == 1 && result.error?.column == 1)
    }

    /// `fail18_EXCLUDE.json` nests 20 arrays: valid JSON whose acceptance depends on the depth limit. With the
    /// default limit (64) it is accepted; with a limit of 19 it is rejected at the 20th `[`.
    @Test("Twenty nested arrays pass the default depth limit and fail a limit of 19")
    func depthLimitDecidesTwentyNestedArrays() throws {
        let bytes = try fileBytes(Self.checkerFolder.appendingPathComponent("fail18_EXCLUDE.json").path)
        #expect(validationError(bytes) == nil)
        #expect(validationError(bytes, maxDepth: 20) == nil)
        let error = try #require(validationError(bytes, maxDepth: 19))
        #expect(error.code == .depthExceeded)
        #expect(error.column == 20 && error.byteOffset == 19)
    }

    @Test("pass01.json as a record's value reads as its compact text at every read-buffer size")
    func passFileAsRecordValue() throws {
        let bytes = try fileBytes(Self.checkerFolder.appendingPathComponent("pass01.json").path)
        let wrapped = Array(#"[{"pass": "#.utf8) + bytes + Array("\n}]".utf8)
        let result = try readJSON(bytes: wrapped, layout: .automatic)
        #expect(result.error == nil)
        let compact = String(decoding: try compactJSON(bytes), as: UTF8.self)
        let expected = [[JSONFieldSnapshot("pass", .json, compact)]]
        #expect(result.fields == expected)
    }
}
