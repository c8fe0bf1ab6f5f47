import FerrySQLite

extension BatchInserter {
    /// Counts, among the packed rows the INSERT ignored (their key stored), those whose stored row holds a different
    /// value in an attribute the row gives, in ``keptCount``: the stored row was kept over the row's values rather
    /// than already holding them.
    ///
    /// Run once the request's rows are written, in two passes as ``upsertInTableOrder(_:full:)`` updates: the
    /// rows' primary keys are looked up in key order (the rows' order: the uniqueness index alone answers), then
    /// each row is compared with its stored row in primary-key order, so the table is walked once rather than at
    /// one random page per row. A row that gives no uniqueness constraint whole, or only its key, is not compared.
    mutating func countKept(_ rows: PackedRows, ignored: [Int], full: Shape, storage: [StoredValueCodec.StorageClass])
        throws
    {
        var present: [Int] = []
        var stored: [(primaryKey: Int64, row: Int)] = []
        stored.reserveCapacity(ignored.count)
        for row in ignored {
            let shape = try packedShape(of: rows, row: row, full: full, present: &present)
            guard let probe = try keptProbe(for: shape) else { continue }
            let statement = probe.keyLookup
            defer { statement.reset() }
            try Self.bindKey(of: rows, row: row, present: present, at: probe.keyOffsets, to: statement)
            if try statement.step() { stored.append((statement.int64(at: 0), row)) }
        }
        stored.sort { ($0.primaryKey, $0.row) < ($1.primaryKey, $1.row) }
        for (primaryKey, row) in stored {
            let shape = try packedShape(of: rows, row: row, full: full, present: &present)
            guard let probe = try keptProbe(for: shape) else { continue }
            let statement = probe.comparison.statement
            defer { statement.reset() }
            try bindPacked(rows, row: row, present: present, in: probe.comparison, storage: storage)
            try statement.bind(primaryKey, at: shape.names.count + 1)
            if try statement.step() { keptCount += 1 }
        }
    }

    /// The two statements that tell an ignored row of `shape` from its stored row: `SELECT _pk … WHERE <key> = ?…`
    /// (its parameters the key's, at `keyOffsets` among the shape's attributes), and `SELECT 1 … WHERE _pk = ?n+1
    /// AND (<a> IS NOT ?i OR …)`, whose parameters 1…n are the shape's given attributes in its order (so a row binds
    /// as for its INSERT). `nil` when the shape gives no uniqueness constraint whole, or only its key. Prepared on
    /// first use.
    private mutating func keptProbe(for shape: Shape) throws -> KeptProbe? {
        if let probe = keptProbes[shape.names] { return probe }
        guard let key = constraint(givenBy: shape.names) else { return nil }
        let parameters = shape.names.enumerated()
        // A value that may be in a blob file is stored as the file's reference: it is not compared (its parameter
        // is still named, so every parameter binds).
        let compared = parameters.filter { !key.contains($0.element) && !shape.external[$0.offset] }
        let uncompared = parameters.filter { !key.contains($0.element) && shape.external[$0.offset] }
        let differs = compared.map { SQL.identifier($0.element) + " IS NOT ?\($0.offset + 1)" }
        guard !differs.isEmpty else { return nil }
        let table = SQL.identifier(mapping.table)
        let conditions = key.map { SQL.identifier($0) + " = ?" }.joined(separator: " AND ") + hierarchyCondition
        let comparison =
            "SELECT 1 FROM \(table) WHERE \(SQL.identifier("_pk")) = ?\(shape.names.count + 1) "
            + "AND (\(differs.joined(separator: " OR ")))"
            + uncompared.map { " AND (?\($0.offset + 1) IS NULL OR 1)" }.joined()
        let probe = KeptProbe(
            keyLookup: try connection.prepare("SELECT \(SQL.identifier("_pk")) FROM \(table) WHERE \(conditions)"),
            keyOffsets: key.compactMap { shape.names.firstIndex(of: $0) },
            comparison: try comparisonShape(comparison, like: shape))
        keptProbes[shape.names] = probe
        return probe
    }
}

/// The statements that compare an ignored row with its stored row (see `BatchInserter.countKept`).
struct KeptProbe {
    /// `SELECT _pk … WHERE <key> = ?…`.
    let keyLookup: Statement
    /// The key attributes' offsets among the shape's given attributes, in the lookup's parameter order.
    let keyOffsets: [Int]
    /// `SELECT 1 … WHERE _pk = ?n+1 AND (<a> IS NOT ?i OR …)`.
    let comparison: BatchInserter.Shape
}
