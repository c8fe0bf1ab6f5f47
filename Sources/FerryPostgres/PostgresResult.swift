internal import CLibPQ

/// The rows a statement returned, copied out of libpq's result as text (`nil` for NULL), and how many rows it
/// touched.
package struct PostgresResult: Sendable, Hashable {
    /// The column names, in order.
    package var columns: [String]
    /// The rows, each a value per column in text format (`t`/`f` for booleans).
    package var rows: [[String?]]
    /// The rows an INSERT, UPDATE, DELETE or COPY affected (`PQcmdTuples`); 0 for other statements.
    package var affectedRows: Int

    init(copying result: OpaquePointer?) {
        guard let result else {
            (columns, rows, affectedRows) = ([], [], 0)
            return
        }
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        rows = (0..<rowCount).map { row in
            (0..<columnCount).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
        affectedRows = Int(String(cString: PQcmdTuples(result))) ?? 0
    }
}
