import FerrySQLite
import Foundation

extension StoreError.Code {
    /// A batch request does not fit the model: an unknown or abstract entity, an unknown attribute, a relationship
    /// or derived attribute where only stored attributes may go, a value or expression of the wrong type, or object
    /// IDs of another store or of several entities (`NSManagedObjectValidationError`).
    public static let invalidBatchRequest = Self(rawValue: "invalidBatchRequest", coreDataCode: 1550)
    /// A batch insert would store nil in a non-optional attribute that has no default
    /// (`NSValidationMissingMandatoryPropertyError`).
    public static let missingMandatoryProperty = Self(rawValue: "missingMandatoryProperty", coreDataCode: 1570)
    /// A batch delete would delete an object whose relationship with the Deny rule still holds objects; nothing was
    /// deleted. Core Data's number (`NSCoreDataError`, 134060): its batch delete refuses Deny rules.
    public static let batchDeleteDenied = Self(rawValue: "batchDeleteDenied", coreDataCode: 134060)
    /// The request cannot run with the options given, such as a batch insert under ``MergePolicy/overwrite``
    /// (`NSPersistentStoreUnsupportedRequestTypeError`).
    public static let unsupportedRequest = Self(rawValue: "unsupportedRequest", coreDataCode: 134091)
}

extension StoreError {
    /// The error for an SQLite failure while a batch request ran against `entity`.
    ///
    /// A UNIQUE index refusal becomes ``Code/constraintConflict``, naming the entity and the constraint's
    /// attributes (never the values); anything else becomes ``Code/sqlite`` with SQLite's error as the cause.
    ///
    /// - Parameters:
    ///   - operation: what was running, for the message: `batch insert into Product`.
    ///   - resolution: what the caller could do about a collision, appended to a conflict's message.
    static func batch(
        _ error: SQLiteError, operation: String, entity: String, schema: StoreSchema, path: String,
        resolution: String = ""
    ) -> StoreError {
        guard error.extendedCode == .uniqueConstraint else {
            return StoreError(.sqlite, "\(operation) failed; nothing was written", path: path, underlying: error)
        }
        let constraints = schema.model.allUniquenessConstraints(of: entity)
        let columns = uniqueColumns(in: error.message)
        let named = constraints.filter { Set($0) == columns }
        let listed = (named.isEmpty ? constraints : named).map { "(" + $0.joined(separator: ", ") + ")" }
        let what =
            listed.isEmpty
            ? "a uniqueness constraint"
            : "the uniqueness constraint \(listed.joined(separator: " or ")) of \(entity)"
        return StoreError(
            .constraintConflict,
            "\(operation): a row collides with a stored row, or with another row of the request, on \(what); "
                + "nothing was written" + resolution,
            path: path, underlying: error)
    }

    /// The column names in SQLite's `UNIQUE constraint failed: Product.sku, Product.name` (table prefixes dropped).
    private static func uniqueColumns(in message: String) -> Set<String> {
        guard let start = message.range(of: "failed: ")?.upperBound else { return [] }
        let names = message[start...].split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            return trimmed.split(separator: ".", maxSplits: 1).last.map(String.init) ?? trimmed
        }
        return Set(names)
    }
}
