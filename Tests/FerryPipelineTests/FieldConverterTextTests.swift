import FerryIO
import FerryStore
import Foundation
import Testing

@testable import FerryPipeline

/// Strings, booleans, UUIDs, URIs, binary, nulls and the converter's set-up.
struct FieldConverterTextTests {
    @Test func stringsKeepTheirTextUnlessTrimmingIsAsked() throws {
        let kept = try converter(.string)
        #expect(kept.convert("  Blue Mug ") == .text("  Blue Mug "))
        #expect(kept.convert("") == .text(""), "an empty string stays a string")
        #expect(kept.convert("   ") == .text("   "))
        #expect(kept.convert("Grüße, 世界 👋") == .text("Grüße, 世界 👋"))
        #expect(kept.convert(nil) == .null)

        let trimmed = try converter(.string, options: ConversionOptions(trimsStrings: true))
        #expect(trimmed.convert("\t Blue Mug \r\n") == .text("Blue Mug"))
        #expect(trimmed.convert("   ") == .text(""), "empty after trimming is still a string, not null")
    }

    @Test func stringsTakeJSONNumbersAndBooleansAsWritten() throws {
        let string = try converter(.string)
        #expect(string.convert("1.50e3", kind: .number) == .text("1.50e3"))
        #expect(string.convert("false", kind: .boolean) == .text("false"))
        #expect(string.convert("{\"a\":1}", kind: .json) == .text("{\"a\":1}"))
    }

    @Test func jsonArraysAreJoinedWithTheSeparatorOrKeptAsJSON() throws {
        let kept = try converter(.string)
        #expect(kept.convert(#"["red","blue"]"#, kind: .json) == .text(#"["red","blue"]"#))

        let joined = try converter(.string, options: ConversionOptions(arraySeparator: "; "))
        #expect(joined.convert(#"["red","blue"]"#, kind: .json) == .text("red; blue"))
        #expect(joined.convert(#"[ "a" , 2.5, true,false ]"#, kind: .json) == .text("a; 2.5; true; false"))
        #expect(joined.convert(#"["only"]"#, kind: .json) == .text("only"))
        #expect(joined.convert("[]", kind: .json) == .text(""))
        #expect(
            joined.convert(#"["q\"uote","back\\slash","tab\there","\u00e9\u4e16","\ud83d\udc4b","\/"]"#, kind: .json)
                == .text("q\"uote; back\\slash; tab\there; é世; 👋; /"))
        #expect(joined.convert(#"["lone \udc00"]"#, kind: .json) == .text("lone \u{FFFD}"))
        #expect(joined.convert(#"["a",null]"#, kind: .json) == .text(#"["a",null]"#))
        #expect(joined.convert(#"["a",["b"]]"#, kind: .json) == .text(#"["a",["b"]]"#))
        #expect(joined.convert(#"{"a":"b"}"#, kind: .json) == .text(#"{"a":"b"}"#))
        #expect(joined.convert(#"["a","b"]"#) == .text(#"["a","b"]"#), "a string that looks like an array is text")
    }

    @Test func booleansReadTheDefaultTokensIgnoringCase() throws {
        let boolean = try converter(.boolean)
        for token in ["true", "TRUE", "Yes", "y", "T", "1", " true "] { #expect(boolean.convert(token) == .integer(1)) }
        for token in ["false", "False", "NO", "n", "f", "0"] { #expect(boolean.convert(token) == .integer(0)) }
        #expect(boolean.convert("true", kind: .boolean) == .integer(1))
        #expect(boolean.convert("false", kind: .boolean) == .integer(0))
        #expect(boolean.convert("1", kind: .number) == .integer(1))
        #expect(boolean.convert("2", kind: .number) == .failure(.invalidValue))
        for text in ["maybe", "yess", "truee", "10", "on", "1.0"] {
            #expect(boolean.convert(text) == .failure(.invalidValue))
        }
        #expect(boolean.convert("") == .null)
        #expect(boolean.convert("[true]", kind: .json) == .failure(.wrongKind))
    }

    @Test func booleanFailuresListTheTokens() throws {
        let failure = try #require(try converter(.boolean).failure("maybe"))
        #expect(failure.message == "expected true/false (true, yes, y, t, 1 / false, no, n, f, 0)")
        #expect(failure.excerpt == "maybe")
    }

    @Test func customBooleanTokensReplaceTheDefaultsButJSONBooleansStillWork() throws {
        let options = ConversionOptions(trueTokens: ["on", "Ja"], falseTokens: ["off", "nein"])
        let boolean = try converter(.boolean, options: options)
        #expect(boolean.convert("ON") == .integer(1))
        #expect(boolean.convert("ja") == .integer(1))
        #expect(boolean.convert("Nein") == .integer(0))
        #expect(boolean.convert("true") == .failure(.invalidValue))
        #expect(boolean.convert("true", kind: .boolean) == .integer(1))
        #expect(boolean.failure("x")?.message == "expected true/false (on, Ja / off, nein)")
    }

    @Test func optionsThatCannotWorkAreRefusedWhenTheConverterIsBuilt() throws {
        let cases: [(ConversionOptions, String)] = [
            (ConversionOptions(trueTokens: ["yes", "Y"], falseTokens: ["y"]), "'y' is both a true and a false token"),
            (ConversionOptions(trueTokens: [""]), "a boolean token is empty (empty fields are null)"),
            (
                ConversionOptions(falseTokens: [" no"]),
                "the boolean token ' no' starts or ends with whitespace, which trimming removes"
            ),
            (ConversionOptions(dateFormats: []), "dateFormats is empty: name at least one date format"),
        ]
        for (options, message) in cases {
            let error = #expect(throws: ConversionFailure.self) { try FieldConverter(type: .string, options: options) }
            #expect(error?.code == .invalidOptions)
            #expect(error?.message == message)
        }
    }

    @Test func uuidsAreStoredLowerCase() throws {
        let uuid = try converter(.uuid)
        #expect(uuid.convert("123E4567-E89B-12D3-A456-426614174000") == .text("123e4567-e89b-12d3-a456-426614174000"))
        #expect(uuid.convert(" 123e4567-e89b-12d3-a456-426614174000 ") == .text("123e4567-e89b-12d3-a456-426614174000"))
        for text in [
            "123e4567e89b12d3a456426614174000", "{123e4567-e89b-12d3-a456-426614174000}",
            "123e4567-e89b-12d3-a456-42661417400g", "123e4567-e89b-12d3-a456-4266141740001",
            "123e4567-e89b-12d3a-456-426614174000",
        ] {
            #expect(uuid.convert(text) == .failure(.invalidValue), "\(text)")
        }
        #expect(uuid.convert("123", kind: .number) == .failure(.wrongKind))
    }

    @Test func urisMustBeRFC3986TextSoBothModesStoreItUnchanged() throws {
        let uri = try converter(.uri)
        for text in [
            "https://example.com/a/b?q=1&r=%20x#top", "mailto:someone@example.com", "urn:isbn:0451450523",
            "HTTP://EXAMPLE.COM/", "http://[::1]:8080/", "relative/path", "s3://bucket/key_(1)~'*!$+,;=",
        ] {
            #expect(uri.convert(text) == .text(text), "\(text)")
        }
        for text in [
            "https://example.com/a b", "https://exämple.com", "http://x/%zz", "http://x/%2", "http://x/{y}", "a|b",
            "<x>",
        ] {
            #expect(uri.convert(text) == .failure(.invalidValue), "\(text)")
        }
        #expect(uri.convert("  ") == .null)
    }

    @Test func binaryIsDecodedFromBase64WithOrWithoutPadding() throws {
        let binary = try converter(.binary)
        #expect(binary.convert("AAEC/w==") == .blob([0, 1, 2, 255]))
        #expect(binary.convert("AAEC/w") == .blob([0, 1, 2, 255]))
        #expect(binary.convert("AAECAw==") == .blob([0, 1, 2, 3]))
        #expect(binary.convert("AAEC") == .blob([0, 1, 2]))
        #expect(binary.convert("+/+/") == .blob([0xFB, 0xFF, 0xBF]))
        #expect(binary.convert("aGVsbG8gd29ybGQ=") == .blob(Array("hello world".utf8)))
        for text in ["AAEC/w=", "A", "AAECA", "AA=A", "AA==AA==", "AA EC", "-_8=", "AAEC/w===", "AAECA==="] {
            #expect(binary.convert(text) == .failure(.invalidValue), "\(text)")
        }
        #expect(binary.convert("AAE") == .blob([0, 1]), "unpadded: three characters are two bytes")
        #expect(binary.convert("AAE=") == .blob([0, 1]))
    }

    @Test func transformableAttributesCannotBeImported() {
        let error = #expect(throws: ConversionFailure.self) {
            try FieldConverter(type: .transformable(transformer: "JSON"))
        }
        #expect(error?.code == .unsupportedType)
        #expect(error?.message == "transformable attributes cannot be imported from a field")
    }

    @Test(arguments: [
        AttributeType.integer16, .integer64, .double, .float, .decimal, .boolean, .date, .binary, .uuid, .uri,
    ])
    func anEmptyFieldIsNullForEveryTypeButString(type: AttributeType) throws {
        let converter = try converter(type)
        #expect(converter.convert("") == .null)
        #expect(converter.convert(" \t ") == .null)
        #expect(converter.convert(nil) == .null)
        #expect(converter.convert("", kind: .null) == .null)
    }

    @Test func failuresWithWrongKindsSayWhatWasGiven() throws {
        let failure = try #require(try converter(.date).failure("[1,2]", kind: .json))
        #expect(failure.code == .wrongKind)
        #expect(failure.message == "expected a date in ISO-8601 (2026-01-05T09:00:00Z), not a JSON array or object")
    }

    @Test func excerptsAreCutAfterFortyCharacters() throws {
        let long = String(repeating: "é", count: 39) + "👋xyz"
        let failure = try #require(try converter(.integer64).failure(long))
        #expect(failure.excerpt == String(repeating: "é", count: 39) + "👋…")
        let exact = String(repeating: "a", count: 40)
        #expect(try converter(.integer64).failure(exact)?.excerpt == exact)
    }

    @Test func aFailedFieldLeavesTheOpenRowAsItWas() throws {
        var rows = PackedRows(columns: ["sku", "quantity"])
        rows.appendText("P-1")
        let quantity = try converter(.integer32)
        #expect(quantity.append(text: "lots", to: &rows) != nil)
        #expect(rows.openRowCellCount == 1)
        #expect(quantity.append(text: "12", to: &rows) == nil)
        rows.endRow()
        #expect(rows.cell(row: 0, column: 1) == .integer(12))
    }
}
