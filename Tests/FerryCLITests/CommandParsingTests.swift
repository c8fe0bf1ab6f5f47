import ArgumentParser
import FerryIO
import FerryStore
import Testing

@testable import ferry

/// The command line parsed in-process: what each argument list means, and what it refuses.
struct CommandParsingTests {
    @Test func convertInfersBothFormatsFromTheExtensions() throws {
        let command = try #require(try Ferry.parseAsRoot(["convert", "in.csv", "out.ndjson"]) as? ConvertCommand)
        #expect(try resolveFormat(command.from, path: command.input, option: "--from") == .csv)
        #expect(try resolveFormat(command.to, path: command.output, option: "--to") == .ndjson)
    }

    @Test func mergePoliciesTakeThePipelineFilesSpellingsToo() throws {
        for (spelling, policy) in [
            ("store-trump", MergePolicy.mergeByPropertyStoreTrump), ("storeTrump", .mergeByPropertyStoreTrump),
            ("object-trump", .mergeByPropertyObjectTrump), ("objectTrump", .mergeByPropertyObjectTrump),
            ("rollback", .rollback),
        ] {
            let command = try #require(
                try Ferry.parseAsRoot([
                    "import", "a.csv", "--store", "s.sqlite", "--entity", "E", "--merge-policy", spelling,
                ]) as? ImportCommand)
            #expect(command.mergePolicy?.policy == policy, "\(spelling)")
        }
        #expect(throws: (any Error).self) {
            try Ferry.parseAsRoot(["import", "a.csv", "--store", "s.sqlite", "--entity", "E", "--merge-policy", "x"])
        }
    }

    @Test func convertFromStandardInputNeedsExplicitFormats() {
        #expect(throws: (any Error).self) { try Ferry.parseAsRoot(["convert", "-", "out.csv"]) }
        #expect(throws: Never.self) { try Ferry.parseAsRoot(["convert", "-", "-", "--from", "tsv", "--to", "json"]) }
    }

    @Test func aDelimiterMustBeOneCharacterOrTab() throws {
        #expect(throws: (any Error).self) { try Ferry.parseAsRoot(["count", "a.csv", "--delimiter", ";;"]) }
        let command = try #require(try Ferry.parseAsRoot(["count", "a.csv", "--delimiter", "tab"]) as? CountCommand)
        #expect(try command.read.dialect(for: .csv)?.delimiter == UInt8(ascii: "\t"))
    }

    @Test func readOptionsShapeTheDialect() throws {
        let command = try #require(
            try Ferry.parseAsRoot([
                "count", "a.csv", "--delimiter", ";", "--no-header", "--null", "NA", "--null", "", "--lenient",
                "--allow-ragged-rows",
            ]) as? CountCommand)
        let dialect = try #require(try command.read.dialect(for: .csv))
        #expect(dialect.delimiter == UInt8(ascii: ";"))
        #expect(dialect.hasHeader == false)
        #expect(dialect.nullTokens == ["NA", ""])
        #expect(dialect.isStrict == false)
        #expect(dialect.allowsRaggedRows == true)
        #expect(try command.read.dialect(for: .ndjson) == nil)
    }

    @Test func anUnknownExtensionIsAUsageErrorNamingTheOption() {
        #expect {
            try Ferry.parseAsRoot(["count", "data.txt"])
        } throws: { error in
            Ferry.message(for: error).contains("--format")
        }
        #expect(Ferry.exitCode(for: ValidationError("x")) == FerryExitCode.usage)
    }

    @Test func ioErrorsMapToTheDocumentedExitCodes() {
        #expect(FerryExitCode.forError(FerryIOError(.fileNotFound, "")) == ExitCode(66))
        #expect(FerryExitCode.forError(FerryIOError(.permissionDenied, "")) == ExitCode(66))
        #expect(FerryExitCode.forError(FerryIOError(.io, "")) == ExitCode(74))
        #expect(FerryExitCode.forError(FerryIOError(.malformedQuote, "")) == ExitCode(65))
        #expect(FerryExitCode.forError(FerryIOError(.invalidJSON, "")) == ExitCode(65))
    }
}
