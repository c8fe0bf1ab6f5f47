import Foundation

extension PackedRows {
    /// The complete rows' indexes ordered by the cells of `keyColumns` as SQLite's BINARY collation orders them
    /// (NULL first, then numbers, then text by bytes), ties kept in row order. Inserting a chunk in key order walks
    /// the uniqueness index once instead of jumping between its pages for every row, and an upsert of rows in
    /// that order probes and updates them in one walk of each B-tree; an importer sorts each chunk on its reader's
    /// thread (with ``reorder(_:)``) while the store writes the previous one.
    public func orderByKey(_ keyColumns: [Int]) -> [Int] {
        bytes.withUnsafeBytes { storage in
            (0..<count).sorted { left, right in
                for column in keyColumns {
                    let order = Self.compare(
                        cell(row: left, column: column), cell(row: right, column: column), in: storage)
                    if order != 0 { return order < 0 }
                }
                return left < right
            }
        }
    }

    private static func compare(_ left: Cell, _ right: Cell, in storage: UnsafeRawBufferPointer) -> Int {
        switch (left, right) {
        case (.integer(let a), .integer(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.real(let a), .real(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.text(let a, let aCount), .text(let b, let bCount)), (.blob(let a, let aCount), .blob(let b, let bCount)):
            let common = min(aCount, bCount)
            if common > 0, let base = storage.baseAddress {
                let order = memcmp(base + a, base + b, common)
                if order != 0 { return Int(order) }
            }
            return aCount < bCount ? -1 : (aCount == bCount ? 0 : 1)
        default:
            return rank(left) - rank(right)
        }
    }

    private static func rank(_ cell: Cell) -> Int {
        switch cell {
        case .absent, .null: 0
        case .integer, .real: 1
        case .text: 2
        case .blob: 3
        }
    }
}
