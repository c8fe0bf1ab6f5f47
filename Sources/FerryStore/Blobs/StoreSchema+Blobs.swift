import FerrySQLite

/// The reference counts of externally stored blobs, kept by SQLite triggers in the transaction that changes them.
///
/// `ferry_blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, refs INTEGER NOT NULL)` has one row per blob file:
/// its SHA-256, its size in bytes, and how many columns refer to it. For each column of an attribute that allows
/// external storage, three triggers count the well-formed references (``BlobReference/sqlCondition(_:)``) that
/// rows gain and lose:
///
/// - `AFTER INSERT`: the new row's reference counts one more (a row for the hash is made if missing);
/// - `AFTER DELETE`: the deleted row's reference counts one less;
/// - `AFTER UPDATE OF <column>`: the new reference one more, then the old one less.
///
/// So context saves, batch inserts (upserts included), batch updates, batch deletes and their cascades, and plain
/// SQL on the file all keep the counts right, and a rolled-back transaction rolls its counts back with it. A row
/// whose `refs` reaches 0 marks a file to remove once the transaction has committed (see
/// ``PersistentStore/sweepBlobs()``); the partial index `ferry_blobs_released` finds those rows at no cost.
///
/// Triggers are named `ferry_blob_<table>_<column>_<event>` and made with `IF NOT EXISTS`, so the same model
/// gives the same SQL, and opening a store made before external storage existed adds them.
extension StoreSchema {
    /// The columns of attributes that allow external storage, by table, each column once, in model order.
    var externalStorageColumns: [(table: String, column: String)] {
        var columns: [(table: String, column: String)] = []
        var seen: Set<[String]> = []
        for entity in model.entities {
            guard let mapping = mapping(for: entity.name) else { continue }
            for attribute in entity.attributes
            where attribute.isStored && attribute.allowsExternalStorage && attribute.type == .binary {
                guard seen.insert([mapping.table, attribute.name]).inserted else { continue }
                columns.append((mapping.table, attribute.name))
            }
        }
        return columns
    }

    /// Whether any attribute may keep its values in files.
    var usesExternalStorage: Bool { !externalStorageColumns.isEmpty }

    /// The table, index and triggers that count blob references; empty for a model without external storage.
    var blobStatements: [String] {
        let columns = externalStorageColumns
        guard !columns.isEmpty else { return [] }
        var statements = [
            "CREATE TABLE IF NOT EXISTS ferry_blobs (hash TEXT PRIMARY KEY, size INTEGER NOT NULL, "
                + "refs INTEGER NOT NULL) WITHOUT ROWID",
            "CREATE INDEX IF NOT EXISTS ferry_blobs_released ON ferry_blobs (hash) WHERE refs <= 0",
        ]
        for (table, column) in columns {
            let new = "NEW.\(SQL.identifier(column))"
            let old = "OLD.\(SQL.identifier(column))"
            let gain =
                "INSERT INTO ferry_blobs (hash, size, refs) SELECT \(BlobReference.sqlHash(new)), 0, 1 "
                + "WHERE \(BlobReference.sqlCondition(new)) ON CONFLICT (hash) DO UPDATE SET refs = refs + 1;"
            let loss =
                "UPDATE ferry_blobs SET refs = refs - 1 WHERE \(BlobReference.sqlCondition(old)) "
                + "AND hash = \(BlobReference.sqlHash(old));"
            func trigger(_ event: String, _ timing: String, _ body: String) -> String {
                let name = SQL.identifier("ferry_blob_\(table)_\(column)_\(event)")
                return "CREATE TRIGGER IF NOT EXISTS \(name) AFTER \(timing) ON \(SQL.identifier(table)) "
                    + "BEGIN \(body) END"
            }
            statements.append(trigger("insert", "INSERT", gain))
            statements.append(trigger("delete", "DELETE", loss))
            statements.append(trigger("update", "UPDATE OF \(SQL.identifier(column))", gain + " " + loss))
        }
        return statements
    }
}
