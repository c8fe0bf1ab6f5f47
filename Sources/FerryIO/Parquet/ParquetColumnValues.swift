/// Where one column's values go, a value per row: handed out by ``ParquetWriter/writeRows(_:_:)`` for a run of rows,
/// and behind each of the writer's row-by-row `write` calls.
///
/// Each call checks the value against the column (its type, its range, whether it may be null) and adds it to the
/// column's open page. Valid only during the call that handed it out.
public struct ParquetColumnValues {
    let writer: UnsafeMutablePointer<ParquetColumnWriter>
    /// The file's writer, for errors; it outlives every call that hands out values.
    unowned(unsafe) let owner: ParquetWriter
    /// The record (counted from 1) the next value belongs to.
    public private(set) var record: Int

    init(writer: UnsafeMutablePointer<ParquetColumnWriter>, owner: ParquetWriter, record: Int) {
        self.writer = writer
        self.owner = owner
        self.record = record
    }

    /// The column the values are written to.
    public var column: ParquetColumn { writer.pointee.column }

    /// Adds a null.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the column is required.
    @inline(__always)
    public mutating func appendNull() throws {
        guard writer.pointee.isOptional else { throw failure("is required and cannot hold a null") }
        try writer.pointee.appendNull()
        record += 1
    }

    /// Adds an integer: for `int16`, `int32`, `int64` and `timestampMicros` columns (microseconds since
    /// 1970-01-01T00:00:00Z), and unscaled values of decimal columns up to 18 digits.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the value is outside the column's integer type.
    @inline(__always)
    public mutating func append(integer value: Int64) throws {
        switch writer.pointee.column.type {
        case .int16 where value < Int64(Int16.min) || value > Int64(Int16.max),
            .int32 where value < Int64(Int32.min) || value > Int64(Int32.max):
            throw failure("holds \(writer.pointee.column.type) values and \(value) does not fit")
        case .int16, .int32, .int64, .timestampMicros:
            try writer.pointee.append(integer: value)
        case .decimal(let precision, _) where precision <= 18:
            try writer.pointee.append(integer: value)
        default:
            preconditionFailure("an integer written to the \(writer.pointee.column.type) column")
        }
        record += 1
    }

    /// Adds a floating-point value to a `float` or `double` column.
    @inline(__always)
    public mutating func append(real value: Double) throws {
        precondition(
            writer.pointee.physical == .double || writer.pointee.physical == .float,
            "a floating-point value written to the \(writer.pointee.column.type) column")
        try writer.pointee.append(real: value)
        record += 1
    }

    /// Adds a boolean to a `boolean` column.
    @inline(__always)
    public mutating func append(boolean value: Bool) throws {
        precondition(writer.pointee.physical == .boolean, "a boolean written to the \(writer.pointee.column.type) column")
        try writer.pointee.append(integer: value ? 1 : 0)
        record += 1
    }

    /// Adds bytes to a `string` column (UTF-8), a `binary` column, or a `uuid` column (its 16 bytes).
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` for a UUID that is not 16 bytes.
    @inline(__always)
    public mutating func append(bytes value: UnsafeRawBufferPointer) throws {
        switch writer.pointee.physical {
        case .byteArray where writer.pointee.writesUUIDText:
            guard value.count == 16 else { throw failure("holds 16-byte UUIDs") }
            try UUIDText.withLowercaseText(of: value) { try writer.pointee.append(bytes: $0) }
        case .byteArray:
            try writer.pointee.append(bytes: value)
        case .fixedLenByteArray where writer.pointee.column.type == .uuid:
            guard value.count == 16 else { throw failure("holds 16-byte UUIDs") }
            try writer.pointee.append(bytes: value)
        default:
            preconditionFailure("bytes written to the \(writer.pointee.column.type) column")
        }
        record += 1
    }

    /// Adds a decimal given as text (`-12.50`) to a `decimal` column, exactly.
    ///
    /// - Throws: ``FerryIOError`` `.invalidValue` when the text is not a number, has more significant digits than
    ///   the column's precision, or more fraction digits than its scale (other than trailing zeros).
    public mutating func append(decimalText text: UnsafeRawBufferPointer) throws {
        let column = writer.pointee.column
        guard case .decimal(let precision, let scale) = column.type else {
            preconditionFailure("a decimal written to the \(column.type) column")
        }
        let unscaled: Int128
        do {
            unscaled = try ParquetDecimal.unscaled(text, precision: precision, scale: scale)
        } catch {
            let what =
                switch error {
                case .notANumber: "holds decimals and a value is not a decimal number"
                case .tooManyDigits: "holds decimals of at most \(Self.digits(precision)) and a value has more"
                case .tooManyFractionDigits:
                    "holds decimals with \(Self.digits(scale)) after the point and a value has more"
                }
            throw failure(what)
        }
        if precision <= 18 {
            try writer.pointee.append(integer: Int64(unscaled))
            record += 1
            return
        }
        // Big-endian two's complement in the column's width.
        let width = column.type.fixedLength
        var fixed: (UInt64, UInt64) = (0, 0)
        try withUnsafeMutableBytes(of: &fixed) { fixed in
            var remaining = unscaled
            for position in stride(from: width - 1, through: 0, by: -1) {
                fixed[position] = UInt8(truncatingIfNeeded: remaining)
                remaining >>= 8
            }
            try writer.pointee.append(bytes: UnsafeRawBufferPointer(rebasing: fixed[0..<width]))
        }
        record += 1
    }

    /// `1 digit`, `2 digits`.
    private static func digits(_ count: Int) -> String {
        count == 1 ? "1 digit" : "\(count) digits"
    }

    private func failure(_ what: String) -> FerryIOError {
        FerryIOError(.invalidValue, "column \(column.name) \(what)", file: owner.path, record: record)
    }
}
