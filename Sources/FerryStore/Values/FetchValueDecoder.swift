import FerrySQLite
import Foundation

/// Turns the columns of fetched rows back into attribute values: ``StoredValueCodec/decode(_:as:)`` for attributes,
/// with the reading of externally stored binary values (the TEXT of a ``BlobReference``, read from `blobFolder`),
/// aggregates, and errors naming the entity and key for a value that does not decode.
struct FetchValueDecoder {
    let entityName: String
    /// The store's blob folder (`nil` in memory), where externally stored binary values are read.
    let blobFolder: BlobFolder?

    /// - Throws: ``FetchRequestError`` `.undecodableValue` for a value that does not fit; ``StoreError``
    ///   `.invalidBlobReference` for a binary column holding TEXT that is not a blob reference, `.blobFileMissing` or
    ///   `.blobFileFailed` when the file cannot be read.
    func decode(_ value: SQLiteValue, _ decoding: FetchQuery.Decoding, key: String) throws -> AttributeValue? {
        if case .null = value { return nil }
        if case .attribute(.binary) = decoding, case .text(let text) = value {
            return .binary(try readBlob(text, key: key))
        }
        let decoded: AttributeValue?
        switch decoding {
        case .attribute(let type): decoded = StoredValueCodec.decode(value, as: type)
        case .integer: decoded = value.integer.map(AttributeValue.integer)
        case .double: decoded = value.real.map(AttributeValue.double)
        case .decimalAggregate(let function):
            guard case .text(let list) = value else { throw undecodable(key, value, "decimal texts") }
            let texts = list.split(separator: " ")
            let values = texts.compactMap { StoredValueCodec.decimal(from: String($0)) }
            guard !values.isEmpty, values.count == texts.count else { throw undecodable(key, value, "decimal texts") }
            return Self.aggregate(values, function)
        }
        guard let decoded else {
            if case .attribute(let type) = decoding { throw undecodable(key, value, type.name) }
            throw undecodable(key, value, "a number")
        }
        return decoded
    }

    /// `function` over `values`, exactly.
    static func aggregate(_ values: [Decimal], _ function: FetchAggregate.Function) -> AttributeValue? {
        switch function {
        case .count: return .integer(Int64(values.count))
        case .sum: return .decimal(values.reduce(0, +))
        case .average: return .decimal(values.reduce(0, +) / Decimal(values.count))
        case .min: return values.min().map(AttributeValue.decimal)
        case .max: return values.max().map(AttributeValue.decimal)
        }
    }

    /// The bytes of the blob `text` refers to. Only a text of exactly the reference's shape becomes a path.
    private func readBlob(_ text: String, key: String) throws -> Data {
        guard let reference = BlobReference(storedText: text) else {
            throw StoreError(
                .invalidBlobReference,
                "'\(key)' of \(entityName) holds TEXT that is not a blob reference (expected '\(BlobReference.prefix)' "
                    + "and 64 lowercase hex digits); the store was changed outside Ferry, and the value is not read")
        }
        guard let blobFolder else {
            throw StoreError(
                .blobFileMissing,
                "'\(key)' of \(entityName) refers to a blob file, but an in-memory store has no blob folder")
        }
        return try blobFolder.read(reference)
    }

    private func undecodable(_ key: String, _ value: SQLiteValue, _ expected: String) -> FetchRequestError {
        FetchRequestError(
            code: .undecodableValue,
            message: "'\(key)' of \(entityName) holds \(Self.storageClass(of: value)), which is not \(expected)",
            entityName: entityName, keyPath: key)
    }

    private static func storageClass(of value: SQLiteValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer: "an INTEGER"
        case .real: "a REAL"
        case .text: "TEXT"
        case .blob: "a BLOB"
        }
    }
}
