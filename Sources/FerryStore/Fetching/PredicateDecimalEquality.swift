import FerrySQLite
internal import Foundation

/// Equality on decimal attributes, compared exactly.
///
/// A decimal is stored as its exact canonical text (`24.9`, never `24.90`), so two decimals are equal exactly when
/// their stored texts are: `==`, `!=` and `IN` compare the column's text with the constants' canonical texts, exact
/// at any length and able to use an index on the column. Orderings (`<`, `BETWEEN`) still read the text as a number
/// (``PredicateOperand/ValueKind/comparable(_:options:)``), since text order is not numeric order.
extension PredicateComparer {
    /// The two sides of `lhs == rhs` compared as exact decimal texts, when `lhs` is a decimal column and `rhs` is
    /// another decimal column or a number constant; nil otherwise.
    func exactDecimalEquality(_ lhs: PredicateOperand, _ rhs: PredicateOperand)
        -> (PredicateSQLFragment, PredicateSQLFragment)?
    {
        guard lhs.isDecimalColumn, let column = lhs.plain else { return nil }
        switch rhs.kind {
        case .column where rhs.isDecimalColumn:
            return rhs.plain.map { (column, $0) }
        case .constant(let value?):
            return value.exactDecimalText.map { (column, .parameter(.text($0))) }
        default:
            return nil
        }
    }

    /// The canonical texts of `values`, or nil unless every one is a number.
    static func exactDecimalTexts(_ values: [AttributeValue]) -> [String]? {
        var texts: [String] = []
        texts.reserveCapacity(values.count)
        for value in values {
            guard let text = value.exactDecimalText else { return nil }
            texts.append(text)
        }
        return texts
    }
}

extension PredicateOperand {
    /// Whether this operand is a decimal attribute's column.
    var isDecimalColumn: Bool {
        if case .column(_, .attribute(.decimal)) = kind { return true }
        return false
    }
}

extension PredicateOperand.ValueKind {
    /// `value` as the in-memory evaluator holds a key path's value: what ``encode(_:)`` gives a constant, except
    /// that a decimal keeps its exact stored text, as the store's column does.
    func storedForm(_ value: AttributeValue) -> SQLiteValue? {
        if self == .attribute(.decimal), let text = value.exactDecimalText { return .text(text) }
        return encode(value)
    }
}

extension AttributeValue {
    /// The text a decimal attribute stores for this value: a decimal's or an integer's exact text, a double's
    /// shortest text read as a decimal (`9.95` is 9.95, not the binary double nearest it); nil for other values.
    var exactDecimalText: String? {
        switch self {
        case .decimal(let decimal):
            return StoredValueCodec.text(of: decimal)
        case .integer(let integer):
            return String(integer)
        case .double(let double) where double.isFinite:
            return Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")).map(StoredValueCodec.text(of:))
        default:
            return nil
        }
    }
}
