/// Parquet's RLE/bit-packed hybrid encoding, for definition levels and dictionary indices.
///
/// A run of eight or more equal values becomes one RLE run (a varint header `count << 1` and the value in
/// `⌈bitWidth / 8⌉` little-endian bytes); everything else is bit-packed in groups of eight (a varint header
/// `groups << 1 | 1`, then the values' low `bitWidth` bits, least significant first). A bit-packed run other than
/// the last always holds a whole number of groups: values from a following repeat fill its last group first, so no
/// padding ever lands between values. Only the very last group is padded with zeros, which readers ignore since a
/// page says how many values it holds.
enum ParquetHybridEncoder {
    /// Appends the encoding of `values`, each below `1 << bitWidth`, to `output`.
    static func encode<Value: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<Value>, bitWidth: Int, into output: inout [UInt8]
    ) {
        precondition(bitWidth >= 0 && bitWidth <= 32, "bit width out of range")
        let count = values.count
        var literalStart = 0
        var index = 0
        while index < count {
            let value = values[index]
            var run = 1
            while index + run < count && values[index + run] == value { run += 1 }
            guard run >= 8 else {
                index += run
                continue
            }
            // Complete the pending literals' last group of eight from this run.
            let pending = index - literalStart
            let fill = pending % 8 == 0 ? 0 : 8 - pending % 8
            index += fill
            run -= fill
            if index > literalStart {
                packLiterals(values, literalStart..<index, bitWidth: bitWidth, into: &output)
            }
            if run >= 8 {
                writeVarint(UInt64(run) << 1, into: &output)
                var remaining = UInt64(value)
                for _ in 0..<(bitWidth + 7) / 8 {
                    output.append(UInt8(truncatingIfNeeded: remaining))
                    remaining >>= 8
                }
                index += run
                literalStart = index
            } else {
                // Fewer than eight left after filling: they start the next literals.
                literalStart = index
                index += run
            }
        }
        if count > literalStart {
            packLiterals(values, literalStart..<count, bitWidth: bitWidth, into: &output)
        }
    }

    /// The bits needed for values up to `maximum`.
    static func bitWidth(forMaximum maximum: Int) -> Int {
        maximum <= 0 ? 0 : Int.bitWidth - maximum.leadingZeroBitCount
    }

    /// Bit-packs `range` of `values` as one run, the last group padded with zeros.
    private static func packLiterals<Value: FixedWidthInteger & UnsignedInteger>(
        _ values: UnsafeBufferPointer<Value>, _ range: Range<Int>, bitWidth: Int, into output: inout [UInt8]
    ) {
        let groups = (range.count + 7) / 8
        writeVarint(UInt64(groups) << 1 | 1, into: &output)
        guard bitWidth > 0 else { return }
        var accumulator: UInt64 = 0
        var bits = 0
        for position in 0..<(groups * 8) {
            let index = range.lowerBound + position
            let value = index < range.upperBound ? UInt64(values[index]) : 0
            accumulator |= value << UInt64(bits)
            bits += bitWidth
            while bits >= 8 {
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                bits -= 8
            }
        }
        // groups * 8 * bitWidth is a multiple of 8 bits: nothing is left over.
    }

    static func writeVarint(_ value: UInt64, into output: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        output.append(UInt8(value))
    }
}
