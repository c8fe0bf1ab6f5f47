package import FerrySQLite

/// Extra SQL that must commit in the same transaction as a write, or not at all: the importer's checkpoint and
/// run ledger, written with each chunk so a killed run resumes exactly after the last committed chunk.
///
/// It runs on the writer connection, inside the transaction, after the write's own SQL; throwing rolls the whole
/// transaction back. Ferry's own modules only: it may touch nothing but `ferry_` tables.
package typealias TransactionCompanion = @Sendable (Connection) throws -> Void
