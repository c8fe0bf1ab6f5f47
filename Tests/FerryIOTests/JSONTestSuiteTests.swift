import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// Nicolas Seriot's JSONTestSuite (`shared/conformance/JSONTestSuite`), files used as they are.
///
/// `test_parsing`: every `y_` file must be accepted and every `n_` file rejected; `i_` files are
/// implementation-defined, so each one's outcome is pinned below and must not change by accident. Each file is
/// also read through ``JSONReader`` at every read-buffer size (same records, same error, whatever the size).
@Suite("JSONTestSuite", .timeLimit(.minutes(5)))
struct JSONTestSuiteTests {
    static let parsingFolder = TestSupport.conformance("JSONTestSuite").appendingPathComponent("test_parsing")
    static let transformFolder = TestSupport.conformance("JSONTestSuite").appendingPathComponent("test_transform")

    /// The names of the `test_parsing` files starting with `prefix`; empty when the folder is missing, which
    /// ``corpusHasTheExpectedFiles()`` catches.
    static func parsingFiles(_ prefix: String) -> [String] {
        ((try? corpusFiles(in: parsingFolder)) ?? []).map(\.name).filter { $0.hasPrefix(prefix) }
    }

    static func bytes(of name: String, in folder: URL = parsingFolder) throws -> [UInt8] {
        try fileBytes(folder.appendingPathComponent(name).path)
    }

    /// What Ferry does with each implementation-defined file: `nil` accepts, a code rejects with that code.
    ///
    /// - Numbers of any size or precision are accepted: Ferry keeps a number's text exactly and never converts it
    ///   while parsing, so there is nothing to overflow.
    /// - Lone, swapped or incomplete surrogate escapes are rejected: they are not Unicode text and would turn into
    ///   invalid UTF-8 (or a silent U+FFFD) downstream.
    /// - Invalid UTF-8 (overlong forms, encoded surrogates, Latin-1 bytes, truncated sequences) is rejected.
    /// - UTF-16 with a byte-order mark is refused as an unsupported encoding; without one it starts with a NUL.
    /// - 500 nested arrays exceed the default depth limit of 64.
    /// - A UTF-8 byte-order mark is skipped, as the readers do.
    static let implementationDefined: [String: FerryIOError.Code?] = [
        "i_number_double_huge_neg_exp.json": nil,
        "i_number_huge_exp.json": nil,
        "i_number_neg_int_huge_exp.json": nil,
        "i_number_pos_double_huge_exp.json": nil,
        "i_number_real_neg_overflow.json": nil,
        "i_number_real_pos_overflow.json": nil,
        "i_number_real_underflow.json": nil,
        "i_number_too_big_neg_int.json": nil,
        "i_number_too_big_pos_int.json": nil,
        "i_number_very_big_negative_int.json": nil,
        "i_object_key_lone_2nd_surrogate.json": .invalidJSON,
        "i_string_1st_surrogate_but_2nd_missing.json": .invalidJSON,
        "i_string_1st_valid_surrogate_2nd_invalid.json": .invalidJSON,
        "i_string_UTF-16LE_with_BOM.json": .unsupportedEncoding,
        "i_string_UTF-8_invalid_sequence.json": .invalidUTF8,
        "i_string_UTF8_surrogate_U+D800.json": .invalidUTF8,
        "i_string_incomplete_surrogate_and_escape_valid.json": .invalidJSON,
        "i_string_incomplete_surrogate_pair.json": .invalidJSON,
        "i_string_incomplete_surrogates_escape_valid.json": .invalidJSON,
        "i_string_invalid_lonely_surrogate.json": .invalidJSON,
        "i_string_invalid_surrogate.json": .invalidJSON,
        "i_string_invalid_utf-8.json": .invalidUTF8,
        "i_string_inverted_surrogates_U+1D11E.json": .invalidJSON,
        "i_string_iso_latin_1.json": .invalidUTF8,
        "i_string_lone_second_surrogate.json": .invalidJSON,
        "i_string_lone_utf8_continuation_byte.json": .invalidUTF8,
        "i_string_not_in_unicode_range.json": .invalidUTF8,
        "i_string_overlong_sequence_2_bytes.json": .invalidUTF8,
        "i_string_overlong_sequence_6_bytes.json": .invalidUTF8,
        "i_string_overlong_sequence_6_bytes_null.json": .invalidUTF8,
        "i_string_truncated-utf-8.json": .invalidUTF8,
        "i_string_utf16BE_no_BOM.json": .nulByte,
        "i_string_utf16LE_no_BOM.json": .nulByte,
        "i_structure_500_nested_arrays.json": .depthExceeded,
        "i_structure_UTF-8_BOM_empty_object.json": nil,
    ]

    @Test("The corpus holds the 95 y_, 188 n_ and 35 i_ files its README lists, and every i_ file is pinned")
    func corpusHasTheExpectedFiles() {
        #expect(Self.parsingFiles("y_").count == 95)
        #expect(Self.parsingFiles("n_").count == 188)
        #expect(Set(Self.parsingFiles("i_")) == Set(Self.implementationDefined.keys))
    }

    @Test("A y_ file is accepted as a JSON document", arguments: parsingFiles("y_"))
    func acceptsValidDocument(name: String) throws {
        let error = validationError(try Self.bytes(of: name))
        #expect(error == nil, "\(name): \(error.map { "\($0)" } ?? "")")
    }

    @Test("An n_ file is rejected with a positioned error", arguments: parsingFiles("n_"))
    func rejectsInvalidDocument(name: String) throws {
        let error = try #require(validationError(try Self.bytes(of: name)), "\(name) was accepted")
        #expect(error.line != nil && error.column != nil && error.byteOffset != nil)
        #expect(!error.message.isEmpty)
        #expect(error.code != .io && error.code != .notAnObject)
    }

    @Test("An i_ file is accepted or rejected as pinned, without crashing", arguments: parsingFiles("i_"))
    func implementationDefinedOutcome(name: String) throws {
        let expected = try #require(Self.implementationDefined[name], "\(name) has no pinned outcome")
        #expect(validationError(try Self.bytes(of: name))?.code == expected)
    }

    @Test("Compacting an accepted document keeps its meaning", arguments: parsingFiles("y_"))
    func compactingKeepsMeaning(name: String) throws {
        let bytes = try Self.bytes(of: name)
        let compact = try compactJSON(bytes)
        // Line breaks and tabs can only be whitespace between tokens (strings must escape them), so none is left.
        let lineBreaksAndTabs: Set<UInt8> = [0x0A, 0x0D, 0x09]
        let hasWhitespaceLeft = compact.contains { lineBreaksAndTabs.contains($0) }
        #expect(!hasWhitespaceLeft)
        // Foundation's parser is the independent referee: both texts must decode to the same value.
        #expect(try foundationReading(bytes) == foundationReading(compact), "\(name)")
        #expect(try compactJSON(compact) == compact, "compacting is idempotent")
    }

    @Test(
        "Every test_parsing file reads the same at every read-buffer size, and fails when the document is invalid",
        arguments: parsingFiles(""))
    func readerAgreesWithDocument(name: String) throws {
        let path = Self.parsingFolder.appendingPathComponent(name).path
        let bytes = try Self.bytes(of: name)
        let documentError = validationError(bytes)
        // Read as NDJSON past every bad line: skipping must agree at every split point too.
        _ = try readJSONThroughBadLinesAtEverySize(path: path, layout: .ndjson)
        for layout in [JSONReader.Layout.automatic, .ndjson] {
            let result = try readJSONAtEverySize(path: path, layout: layout)
            if layout == .ndjson && isBlank(bytes) {
                // No document at all is an invalid JSON text but a valid NDJSON stream of no records.
                #expect(result.error == nil && result.records.isEmpty, "\(name)")
            } else if layout == .ndjson && name == "y_object_with_newlines.json" {
                // Valid JSON, but an object spread over lines is not an NDJSON record (see the corpus README).
                #expect(result.error?.code == .invalidJSON)
                #expect(result.error?.message.contains("one JSON object per line") == true)
            } else if documentError != nil {
                #expect(result.error != nil, "\(name) as \(layout): an invalid document must not read cleanly")
            } else if let error = result.error {
                // A valid document may still not be records (a scalar, an array of numbers): a clean refusal.
                #expect(error.code == .notAnObject, "\(name) as \(layout): \(error)")
            }
        }
    }

    /// Single-line `y_` documents whose top level is an object, read as NDJSON: exactly one record each.
    @Test("A one-line y_ object is exactly one NDJSON record")
    func oneLineObjectsAreOneRecord() throws {
        let expected: [String: [JSONFieldSnapshot]] = [
            "y_object.json": [.string("asd", "sdf"), .string("dfg", "fgh")],
            "y_object_basic.json": [.string("asd", "sdf")],
            "y_object_duplicated_key.json": [.string("a", "b"), .string("a", "c")],
            "y_object_duplicated_key_and_value.json": [.string("a", "b"), .string("a", "b")],
            "y_object_empty.json": [],
            "y_object_empty_key.json": [.number("", "0")],
            "y_object_escaped_null_in_key.json": [.number("foo\u{0}bar", "42")],
            "y_object_extreme_numbers.json": [.number("min", "-1.0e+28"), .number("max", "1.0e+28")],
            "y_object_simple.json": [.json("a", "[]")],
            "y_object_string_unicode.json": [.string("title", "Полтора Землекопа")],
        ]
        for (name, fields) in expected {
            let result = try readJSONAtEverySize(
                path: Self.parsingFolder.appendingPathComponent(name).path, layout: .ndjson)
            #expect(result.error == nil, "\(name)")
            #expect(result.fields == [fields], "\(name)")
        }
    }

    /// Every `y_` document that is an array holding one string, with that string as a record's value: the reader's
    /// unescaping must give what Foundation's parser gives.
    @Test("Strings unescape as Foundation decodes them", arguments: parsingFiles("y_string_"))
    func stringsUnescape(name: String) throws {
        let bytes = try Self.bytes(of: name)
        let decoded = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        guard let array = decoded as? [String], array.count == 1 else {
            return
        }
        let compact = try compactJSON(bytes)
        let token = Array(compact.dropFirst().dropLast())
        let line = Array(#"{"value":"#.utf8) + token + Array("}\n".utf8)
        let result = try readJSON(bytes: line, layout: .ndjson)
        #expect(result.error == nil)
        let expected = [[JSONFieldSnapshot("value", .string, array[0])]]
        #expect(result.fields == expected, "\(name)")
    }

    @Test(
        "Any value, wrapped as a record's field, reads as the document validator says",
        arguments: parsingFiles("y_") + parsingFiles("n_"))
    func wrappedValues(name: String) throws {
        let bytes = try Self.bytes(of: name)
        let wrapped = Array(#"[{"value": "#.utf8) + bytes + Array("\n}]".utf8)
        let result = try readJSON(bytes: wrapped, layout: .array)
        guard name.hasPrefix("y_") else {
            #expect(result.error != nil, "\(name) wrapped in a record must fail")
            return
        }
        #expect(result.error == nil, "\(name): \(result)")
        let field = try #require(result.records.first?.fields.first)
        #expect(result.records.count == 1 && result.records[0].fields.count == 1)
        #expect(field.name == "value")
        let compact = try compactJSON(bytes)
        switch compact.first {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            #expect(field.kind == .json, "\(name)")
            #expect(field.bytes == compact, "\(name)")
        case UInt8(ascii: "\""):
            let decoded = try JSONSerialization.jsonObject(with: Data(compact), options: .fragmentsAllowed)
            let text = try #require(decoded as? String)
            #expect(field.kind == .string, "\(name)")
            #expect(field.bytes == Array(text.utf8), "\(name)")
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            #expect(field.kind == .boolean, "\(name)")
            #expect(field.bytes == compact, "\(name)")
        case UInt8(ascii: "n"):
            #expect(field.kind == .null && field.bytes.isEmpty, "\(name)")
        default:
            #expect(field.kind == .number, "\(name)")
            #expect(field.bytes == compact, "\(name)")
        }
    }

    /// The `test_transform` files have no expected output upstream; this pins what Ferry does with each.
    @Test("test_transform files give the outcome Ferry pinned for each")
    func transformOutcomes() throws {
        // Numbers keep their exact text, however large or precise; repeated keys are kept, in order.
        let kept = [
            "number_-9223372036854775808.json", "number_-9223372036854775809.json", "number_1.0.json",
            "number_1.000000000000000005.json", "number_1000000000000000.json", "number_10000000000000000999.json",
            "number_1e-999.json", "number_1e6.json", "number_9223372036854775807.json",
            "number_9223372036854775808.json", "object_key_nfc_nfd.json", "object_key_nfd_nfc.json",
            "object_same_key_different_values.json", "object_same_key_same_value.json",
            "string_with_escaped_NULL.json",
        ]
        for name in kept {
            let bytes = try Self.bytes(of: name, in: Self.transformFolder)
            let trimmed = Array(bytes.reversed().drop(while: { $0 == 0x0A }).reversed())
            #expect(try compactJSON(bytes) == trimmed, "\(name) keeps its text")
        }
        // Only insignificant whitespace goes; `-0` stays `-0`.
        let unclear = try Self.bytes(of: "object_same_key_unclear_values.json", in: Self.transformFolder)
        #expect(try compactJSON(unclear) == Array(#"{"a":0,"a":-0}"#.utf8))
        // Lone surrogates, escaped or raw, are refused.
        let refused: [String: FerryIOError.Code] = [
            "string_1_escaped_invalid_codepoint.json": .invalidJSON,
            "string_2_escaped_invalid_codepoints.json": .invalidJSON,
            "string_3_escaped_invalid_codepoints.json": .invalidJSON,
            "string_1_invalid_codepoint.json": .invalidUTF8,
            "string_2_invalid_codepoints.json": .invalidUTF8,
            "string_3_invalid_codepoints.json": .invalidUTF8,
        ]
        for (name, code) in refused {
            #expect(validationError(try Self.bytes(of: name, in: Self.transformFolder))?.code == code, "\(name)")
        }
        #expect(Set(kept + refused.keys + ["object_same_key_unclear_values.json"]).count == 22)
        // Repeated keys in a record: both fields, in order; a key with NUL unescapes to a NUL byte.
        let record = try readJSON(#"{"a":1,"a":2,"s":"A\u0000B"}"# + "\n", layout: .ndjson)
        let expected: [[JSONFieldSnapshot]] = [[.number("a", "1"), .number("a", "2"), .string("s", "A\u{0}B")]]
        #expect(record.fields == expected)
    }
}

/// A document as Foundation's parser reads it, serialized with sorted keys: two texts with the same meaning give
/// the same bytes.
private func foundationReading(_ bytes: [UInt8]) throws -> Data {
    let value = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    return try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
}

/// Whether `bytes` hold nothing but JSON whitespace, after an optional UTF-8 byte-order mark.
private func isBlank(_ bytes: [UInt8]) -> Bool {
    let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    return content.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
}
