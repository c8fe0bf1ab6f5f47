/// One column of a Parquet file: its name, how its values are stored (physical type) and what they mean (logical
/// type), and whether it holds nulls.
///
/// A required column has no definition levels; an optional one gets one level per row. Columns are flat (no
/// nesting): a key path such as `category.name` is simply the column's name.
///
/// ```swift
/// let columns = [
///     ParquetColumn(name: "sku", type: .string, isOptional: false),
///     ParquetColumn(name: "price", type: .decimal(precision: 10, scale: 2)),
///     ParquetColumn(name: "updated", type: .timestampMicros),
/// ]
/// ```
public struct ParquetColumn: Sendable, Hashable {
    /// The column's name in the schema.
    public var name: String
    /// What the values are.
    public var type: ParquetValueType
    /// Whether the column may hold nulls (Parquet's OPTIONAL); a required column refuses them.
    public var isOptional: Bool

    /// A column named `name` of `type`, optional unless told otherwise.
    public init(name: String, type: ParquetValueType, isOptional: Bool = true) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
    }
}

/// The value types Ferry writes, each a Parquet physical type with its logical annotation.
///
/// | type | physical | logical |
/// |---|---|---|
/// | `string` | BYTE_ARRAY | STRING |
/// | `binary` | BYTE_ARRAY | none |
/// | `int16`, `int32` | INT32 | INTEGER(16 or 32, signed) |
/// | `int64` | INT64 | none |
/// | `float`, `double` | FLOAT, DOUBLE | none |
/// | `boolean` | BOOLEAN | none |
/// | `timestampMicros` | INT64 | TIMESTAMP(MICROS, adjusted to UTC) |
/// | `uuid` | FIXED_LEN_BYTE_ARRAY(16) | UUID |
/// | `decimal` | INT32 to precision 9, INT64 to 18, FIXED_LEN_BYTE_ARRAY to 38 | DECIMAL(precision, scale) |
public enum ParquetValueType: Sendable, Hashable {
    case string, binary, int16, int32, int64, float, double, boolean, timestampMicros, uuid
    /// An exact decimal of at most `precision` digits, `scale` of them after the point (1 ≤ precision ≤ 38,
    /// 0 ≤ scale ≤ precision).
    case decimal(precision: Int, scale: Int)

    /// The greatest precision a decimal column takes.
    public static let maxDecimalPrecision = 38

    var physical: ParquetPhysicalType {
        switch self {
        case .string, .binary: .byteArray
        case .int16, .int32: .int32
        case .int64, .timestampMicros: .int64
        case .float: .float
        case .double: .double
        case .boolean: .boolean
        case .uuid: .fixedLenByteArray
        case .decimal(let precision, _):
            precision <= 9 ? .int32 : precision <= 18 ? .int64 : .fixedLenByteArray
        }
    }

    /// The width of a FIXED_LEN_BYTE_ARRAY value; 0 for other physical types.
    var fixedLength: Int {
        switch self {
        case .uuid: 16
        case .decimal(let precision, _) where precision > 18: Self.decimalBytes(forPrecision: precision)
        default: 0
        }
    }

    /// How min and max compare: by number, or by bytes (unsigned, or two's complement for decimals).
    var order: ParquetSortOrder {
        switch physical {
        case .boolean, .int32, .int64: .signedInteger
        case .float, .double: .floatingPoint
        case .byteArray: .unsignedBytes
        case .fixedLenByteArray: if case .decimal = self { .signedBytes } else { .unsignedBytes }
        }
    }

    /// The fewest bytes whose two's complement holds every unscaled value of `precision` digits.
    static func decimalBytes(forPrecision precision: Int) -> Int {
        var bytes = 1
        // 10^precision - 1 must fit in 8 * bytes - 1 bits.
        while Double(8 * bytes - 1) * 0.30102999566398120 < Double(precision) { bytes += 1 }
        return bytes
    }
}

/// Parquet's physical types (the `Type` enum of the format's Thrift definition).
enum ParquetPhysicalType: Int32 {
    case boolean = 0, int32 = 1, int64 = 2, float = 4, double = 5, byteArray = 6, fixedLenByteArray = 7
}

/// How a column's statistics order its values.
enum ParquetSortOrder {
    case signedInteger, floatingPoint, unsignedBytes, signedBytes
}
