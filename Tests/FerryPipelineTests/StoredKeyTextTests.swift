@testable import FerryPipeline
import FerrySQLite
@testable import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// The key text of a value (how an import matches records with stored rows) is one definition: Swift's, for a value
/// or a packed cell, equals SQL's `ferry_key_text` on the stored value, for a key of every attribute type, so a
/// record imported again finds its row and a full sync deletes nothing it saw.
struct StoredKeyTextTests {
    /// Awkward values of each attribute type a key can have, as attribute values and as they appear in a CSV file.
    static let cases: [(type: AttributeType, values: [AttributeValue], fields: [String])] = [
        (.integer16, [.integer(-32768), .integer(32767), .integer(0)], ["-32768", "32767", "007"]),
        (.integer32, [.integer(Int64(Int32.min)), .integer(Int64(Int32.max))], ["-2147483648", "+2147483647"]),
        (
            .integer64, [.integer(.min), .integer(.max), .integer(-1)],
            ["-9223372036854775808", "9223372036854775807", "-1"]
        ),
        (
            .double, [.double(-0.0), .double(0.1), .double(1e20), .double(-1.5e-7), .double(123456789.123456789)],
            ["-0.0", "0.1", "1e20", "-1.5e-7", "123456789.123456789"]
        ),
        (.float, [.double(Double(Float(0.1))), .double(-0.0), .double(1e38)], ["0.1", "-0.0", "1e38"]),
        (
            .decimal,
            [
                .decimal(Decimal(string: "1.50") ?? 0), .decimal(Decimal(string: "0.000001") ?? 0),
                .decimal(Decimal(string: "-12345678901234567890.12345678901234567") ?? 0), .decimal(1000),
            ],
            ["1.50", "0.0000010", "-12345678901234567890.12345678901234567", "1e3"]
        ),
        (.string, [.string("Thé"), .string("0.1"), .string("x y")], ["Thé", "0.1", "x y"]),
        (.boolean, [.boolean(true), .boolean(false)], ["true", "false"]),
        (
            .date,
            [
                .date(Date(timeIntervalSince1970: 1_767_603_600.123456)), .date(Date(timeIntervalSince1970: -0.5)),
                .date(Date(timeIntervalSince1970: 1_767_600_000)),
            ],
            ["2026-01-05T09:00:00.123456Z", "1969-12-31T23:59:59.5Z", "2026-01-05T09:00:00+01:00"]
        ),
        (
            .uuid,
            [
                .uuid(
                    UUID(
                        uuid: (
                            0x12, 0x3E, 0x45, 0x67, 0xE8, 0x9B, 0x12, 0xD3, 0xA4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0
                        ))), .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))),
            ],
            ["123E4567-E89B-12D3-A456-426614174000", "00000000-0000-0000-0000-000000000000"]
        ),
        (
            .uri,
            [
                .uri(URL(string: "https://example.com/a?b=1#c") ?? URL(fileURLWithPath: "/")),
                .uri(URL(string: "urn:isbn:0451450523") ?? URL(fileURLWithPath: "/")),
            ],
            ["https://example.com/a?b=1#c", "urn:isbn:0451450523"]
        ),
        (.binary, [.binary(Data([0, 1, 2])), .binary(Data([0xFF])), .binary(Data())], ["AAEC", "/w=="]),
    ]

    /// A store whose entity `Item` has a key `k` of `type` (and a `label`).
    private static func store(keyType type: AttributeType) async throws -> (URL, PersistentContainer) {
        let folder = try TestSupport.makeTemporaryFolder()
        let yaml = """
            entities:
              Item:
                attributes:
                  k: \(type.name)
                  label: string
                uniquenessConstraints: [[k]]
            """
        let container = PersistentContainer(
            name: "keys", model: try ModelFile(yaml: yaml).model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("keys.sqlite").path))
        try await container.loadPersistentStores()
        return (folder, container)
    }

    /// `ferry_key_text(k)` and `k` of every row, in insertion order, read on the store's own connection.
    private static func storedKeys(_ container: PersistentContainer, columns: String = "k") async throws
        -> [(keyText: SQLiteValue, stored: [SQLiteValue])]
    {
        try await container.persistentStore.writer.run { connection in
            try connection.prepare("SELECT ferry_key_text(\(columns)), \(columns) FROM Item ORDER BY _pk").fetchAll()
                .map { row in (row[0], (1..<row.count).map { row[$0] }) }
        }
    }

    @Test(arguments: cases.indices)
    func theSwiftKeyTextOfAValueEqualsTheSQLFunctionOnItsStoredValue(_ index: Int) async throws {
        let (type, values, _) = Self.cases[index]
        let (folder, container) = try await Self.store(keyType: type)
        defer { try? FileManager.default.removeItem(at: folder) }
        let context = container.newBackgroundContext()
        try await context.perform {
            for value in values {
                context.insertObject(entityName: "Item").setValue(value, forKey: "k")
            }
            try context.save()
        }

        let stored = try await Self.storedKeys(container)
        try #require(stored.count == values.count)
        for (value, row) in zip(values, stored) {
            let swift = StoredValueCodec.keyText(of: [value], as: [type])
            var packed = PackedRows(columns: ["k"])
            packed.append(value, as: type)
            packed.endRow()
            #expect(swift != nil, "\(type.name) \(value)")
            #expect(row.keyText == swift.map(SQLiteValue.text), "\(type.name) \(value): SQL \(row.keyText)")
            #expect(packed.keyText(row: 0, columns: [0]) == swift, "\(type.name) \(value) packed")
            #expect(StoredValueCodec.keyText(of: row.stored) == swift, "\(type.name) \(value) as read back")
            #expect(StoredValueCodec.decode(row.stored[0], as: type) == value, "\(type.name) \(value) decoded")
        }
    }

    @Test func aCompoundKeyJoinsItsPartsAndANullPartGivesNoKeyTextInSwiftAndSQL() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = PersistentContainer(
            name: "keys",
            model: try ModelFile(
                yaml: """
                    entities:
                      Item:
                        attributes:
                          k: string
                          size: double
                        uniquenessConstraints: [[k, size]]
                    """
            ).model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("keys.sqlite").path))
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try await context.perform {
            let first = context.insertObject(entityName: "Item")
            first.setValue(.string("SKU-1"), forKey: "k")
            first.setValue(.double(-0.0), forKey: "size")
            context.insertObject(entityName: "Item").setValue(.string("SKU-2"), forKey: "k")
            try context.save()
        }

        let stored = try await Self.storedKeys(container, columns: "k, size")

        #expect(stored.map(\.keyText) == [.text("SKU-1\u{1F}0.0"), .null])
        #expect(
            StoredValueCodec.keyText(of: [.string("SKU-1"), .double(-0.0)], as: [.string, .double]) == "SKU-1\u{1F}0.0")
        #expect(StoredValueCodec.keyText(of: [.string("SKU-2"), nil], as: [.string, .double]) == nil)
    }

    @Test(arguments: cases.indices, [ImportSpec.Mode.batch, .context])
    func aRecordImportedTwiceMatchesItsStoredRowAndAFullSyncDeletesNothingItSaw(
        _ index: Int, _ mode: ImportSpec.Mode
    ) async throws {
        let (type, _, fields) = Self.cases[index]
        let (folder, container) = try await Self.store(keyType: type)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("items.csv")
        let csv = "k,label\n" + fields.map { "\($0),label\n" }.joined()
        try Data(csv.utf8).write(to: input)
        func run(_ name: String, fullSync: FullSync?) async throws -> ImportResult {
            var spec = ImportSpec(entity: "Item", sources: [input.path])
            spec.mode = mode
            spec.fullSync = fullSync
            return try await Importer(container: container).run(spec, name: name)
        }

        let first = try await run("first", fullSync: nil)
        #expect(first.counts.inserted == fields.count && first.counts.rejected == 0, "\(type.name) \(mode)")
        let second = try await run("second", fullSync: FullSync(maxDeleteFraction: 1))
        #expect(second.counts.deleted == 0, "\(type.name) \(mode)")
        #expect(second.counts.inserted == 0 && second.counts.rejected == 0, "\(type.name) \(mode)")
        #expect(second.counts.unchanged == fields.count, "\(type.name) \(mode)")
        #expect(try await Self.storedKeys(container).count == first.counts.inserted, "\(type.name) \(mode)")
    }
}
