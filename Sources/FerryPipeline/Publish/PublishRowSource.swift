import FerryStore
import Foundation

/// Reads the rows a publish sends from one consistent snapshot of the store and writes them into ``CopyChunk``s in
/// COPY's text format, straight from SQLite's buffers. This is Ferry's only reading of store rows for publishing.
///
/// Values by attribute type: integers their digits; doubles and floats Swift's shortest round-trip text (`nan`,
/// `inf` and `-inf`, which PostgreSQL reads too); decimals their exact stored text; booleans `t`/`f`; dates
/// ISO 8601 in UTC with microseconds when present (year 0000 as PostgreSQL's `0001 … BC`, since it has no year 0);
/// strings, URIs and UUIDs their text, escaped; binary and transformable values `bytea` hex, externally stored ones
/// read from their files.
///
/// The order is the store's primary key, so that the same snapshot gives the same rows in the same order: a publish
/// resumed on an unchanged store skips exactly the rows its committed chunks held.
final class PublishRowSource {
    private let rows: SnapshotRows
    private let blobFolder: String
    private let types: [AttributeType]
    /// Room for one formatted number or date.
    private let scratch: UnsafeMutableRawBufferPointer
    /// The rows read so far.
    private(set) var rowsRead = 0
    /// Whether the last row was read: SQLite would start the statement over if stepped again.
    private var isExhausted = false

    /// The rows of `table`'s columns for `spec`, in `snapshot`: those changed after `changedAfter` when given, after
    /// skipping the first `skipping` (already published by a killed run).
    ///
    /// - Throws: `FetchPredicateError`, `FetchRequestError`, `StoreError` (`.historyTokenExpired`…).
    init(
        _ spec: PublishSpec, table: PublishTable, snapshot: ReadSnapshot, changedAfter token: Int64?, skipping: Int
    ) throws {
        var request = FetchRequest(entityName: spec.entity, resultType: .dictionary)
        request.predicate = try spec.predicate.map { try FetchPredicate(format: $0) }
        request.propertiesToFetch = table.columns.map(\.keyPath)
        request.fetchOffset = skipping
        rows = try snapshot.rows(of: request, changedAfter: token)
        blobFolder = snapshot.blobFolderPath
        types = table.columns.map(\.type)
        scratch = .allocate(byteCount: 64, alignment: 8)
        rowsRead = skipping
    }

    deinit {
        scratch.deallocate()
    }

    /// The objects of `entity` deleted after `token` in `snapshot`, each as its values of `key`'s columns (the
    /// uniqueness-constrained attributes the store keeps of a deleted object), as PostgreSQL parameter text.
    ///
    /// - Throws: `StoreError` (`.historyTokenExpired`…).
    static func deletedKeys(
        of entity: String, key: [String], after token: Int64, in snapshot: ReadSnapshot
    ) throws -> [[String?]] {
        try snapshot.deletedObjects(of: entity, after: token).map { change in
            key.map { column in change.tombstone[column].map(parameterText) ?? nil }
        }
    }

    /// Fills `chunk` with up to `limit` rows; returns how many (0 when the rows are exhausted).
    ///
    /// - Throws: `StoreError` when reading fails or an external blob file is missing.
    func fill(_ chunk: inout CopyChunk, limit: Int) throws -> Int {
        chunk.reset(firstRow: rowsRead + 1)
        while !isExhausted && chunk.count < limit {
            guard try rows.next() else {
                isExhausted = true
                break
            }
            for index in types.indices {
                if index > 0 { chunk.append(0x09) }
                try appendField(index, types[index], to: &chunk)
            }
            chunk.endRow()
        }
        rowsRead += chunk.count
        return chunk.count
    }

    @inline(__always)
    private func appendField(_ index: Int, _ type: AttributeType, to chunk: inout CopyChunk) throws {
        switch (rows.storageClass(at: index), type) {
        case (nil, _):
            chunk.append(0x5C)
            chunk.append(0x4E)
        case (.integer?, .boolean):
            chunk.append(rows.int64(at: index) == 0 ? 0x66 : 0x74)
        case (.integer?, .date), (.real?, .date):
            let count = ISO8601Text.write(seconds: rows.double(at: index), into: scratch, years: .beforeChrist)
            chunk.append(raw: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        case (.integer?, _):
            let count = ExportFieldWriter.writeDigits(rows.int64(at: index), into: scratch)
            chunk.append(raw: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        case (.real?, _):
            // Up to 15 UTF-8 bytes, Swift keeps the text inline: no allocation for ordinary values.
            var text = rows.double(at: index).description
            text.withUTF8 { chunk.append(raw: UnsafeRawBufferPointer($0)) }
        case (.text?, .binary), (.text?, .transformable):
            try rows.withTextBytes(at: index) { bytes in
                if let relative = ReadSnapshot.blobRelativePath(ofReference: bytes) {
                    let data = try SnapshotRows.blobFileBytes(relative, in: blobFolder)
                    data.withUnsafeBytes { chunk.append(hex: $0) }
                } else {
                    chunk.append(hex: bytes)
                }
            }
        case (.text?, _):
            rows.withTextBytes(at: index) { chunk.append(escaping: $0) }
        case (.blob?, _):
            rows.withBlobBytes(at: index) { chunk.append(hex: $0) }
        }
    }

    /// A tombstone value as PostgreSQL reads it in a parameter.
    private static func parameterText(_ value: AttributeValue) -> String {
        switch value {
        case .integer(let integer): String(integer)
        case .double(let double): double.description
        case .decimal(let decimal): "\(decimal)"
        case .string(let string): string
        case .boolean(let flag): flag ? "t" : "f"
        case .date(let date): ISO8601Text.string(seconds: date.timeIntervalSince1970, years: .beforeChrist)
        case .binary(let data), .transformable(let data): "\\x" + data.map { String(format: "%02x", $0) }.joined()
        case .uuid(let uuid): uuid.uuidString
        case .uri(let url): url.absoluteString
        }
    }
}
