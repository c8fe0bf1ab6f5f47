import FerryTestSupport
import Foundation
import Testing

/// A store made by the built `ferry` with one entity, `Thing`, that has an attribute of every type; by default with
/// four rows holding limits, nulls, an empty string, text with a line break and quotes, dates before 1970 and far
/// ahead, and a key that is not ASCII: what the tests that read Ferry's Parquet files with other tools (Spark,
/// pandas, Polars) export.
struct EveryTypeStore {
    static let model = """
        entities:
          Thing:
            attributes:
              key: { type: string, optional: false }
              text: string
              small: integer16
              medium: integer32
              large: integer64
              real: double
              single: float
              flag: boolean
              at: date
              id: uuid
              bytes: binary
              amount: { type: decimal, precision: 10, scale: 2 }
              loose: decimal
              link: uri
            uniquenessConstraints: [[key]]
        """

    static let things = #"""
        key,text,small,medium,large,real,single,flag,at,id,bytes,amount,loose,link
        a,plain,-32768,-2147483648,-9223372036854775808,1.5,2.5,true,1900-01-01T00:00:00Z,6ba7b810-9dad-11d1-80b4-00c04fd430c8,aGVsbG8=,12345678.90,0.000000000000000000001,https://example.com/x
        b,"",32767,2147483647,9223372036854775807,-1e-300,1e30,false,9999-12-31T23:59:59Z,00000000-0000-0000-0000-000000000000,,-99999999.99,123456789012345678901234567890,
        c,,,,,,,,,,,,,
        日本,"two
        lines, ""quoted""",0,0,0,0.1,-0.5,true,1969-12-31T23:59:59.999Z,ffffffff-ffff-ffff-ffff-ffffffffffff,AA==,0.01,-1,https://example.com/%E6%97%A5

        """#

    /// The attribute names, in the model's order.
    static let attributes = [
        "key", "text", "small", "medium", "large", "real", "single", "flag", "at", "id", "bytes", "amount", "loose",
        "link",
    ]

    /// The `at` column as microseconds since 1970, in row order.
    static let microseconds: [String?] = ["-2208988800000000", "253402300799000000", nil, "-1000"]

    let ferry: BuiltCommand
    /// The store's path.
    let store: String

    /// Imports the four rows of ``things`` into `things.sqlite` in `folder`.
    init(in folder: URL, ferry: BuiltCommand) throws {
        let things = try TestSupport.write(Array(Self.things.utf8), to: "things.csv", in: folder)
        try self.init(importing: things, into: "things.sqlite", in: folder, ferry: ferry)
    }

    /// Imports the file at `input` (any format `ferry import` reads) into the store `name` in `folder`, with the
    /// model written beside it.
    init(importing input: String, into name: String, in folder: URL, ferry: BuiltCommand) throws {
        self.ferry = ferry
        let model = try TestSupport.write(Array(Self.model.utf8), to: "things.yml", in: folder)
        store = folder.appendingPathComponent(name).path
        try run(["import", input, "--model", model, "--entity", "Thing", "--key", "key"])
    }

    /// Runs `ferry` on the store (`--store` and `--quiet` added) and requires it to succeed.
    func run(_ arguments: [String]) throws {
        let result = try ferry.run(arguments + ["--store", store, "--quiet"])
        try #require(result.status == 0, "\(arguments[0]): \(result.standardError)")
    }
}
