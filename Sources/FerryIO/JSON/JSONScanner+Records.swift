extension JSONScanner {
    /// Parses the object at the cursor (its `{`) into named fields of `records`: the reader's hot path.
    ///
    /// Scalars become one field each: strings unescaped, numbers and booleans as written, null with no bytes.
    /// Arrays become compact JSON text. A nested object becomes compact JSON text too, unless `flattens` is set:
    /// then its members become fields named by key path (`address.city`), and an empty nested object a field
    /// holding `{}`. Repeated keys are kept, in order, as separate fields (readers of a record take the first). Each field costs one reservation and
    /// one slot in `records`, and no allocation once the storage has grown to the records' size.
    ///
    /// `depth` is the number of containers around the object (0 for an NDJSON line).
    /// - Throws: a stop for malformed input or nesting deeper than ``maxDepth``, or ``JSONScanStop/needMore``
    ///   (the caller drops the fields appended so far).
    mutating func scanRecordObject(into records: RecordBuffer, depth recordDepth: Int, flattens: Bool)
        throws(JSONScanStop)
    {
        guard recordDepth < maxDepth else { throw tooDeep(at: cursor) }
        cursor += 1
        let outermost = recordDepth + 1
        var depth = outermost
        var prefixStart = 0
        var prefixCount = 0
        var atFirstMember = true
        while true {
            let byte = try peekToken(
                expecting: atFirstMember ? "expected a string key or '}'" : "expected a string key after ','")
            if byte == JSONBytes.closeBrace && atFirstMember {
                cursor += 1
                if depth == outermost { return }
                // An empty nested object: a field holding `{}`, named by its key path without the final dot.
                let valueStart = records.appendBytes(emptyObjectText.utf8Start, count: 2)
                records.appendSlot(
                    start: valueStart, count: 2, nameStart: prefixStart, nameCount: prefixCount - 1, kind: .json)
                depth -= 1
                prefixStart = prefixStarts[depth]
                prefixCount = prefixCounts[depth]
            } else {
                guard byte == JSONBytes.quote else {
                    throw unexpectedByte(
                        at: cursor,
                        expecting: atFirstMember ? "expected a string key or '}'" : "expected a string key after ','")
                }
                let key = try scanString()
                try expect(JSONBytes.colon, "expected ':' after an object key")
                let valueByte = try peekToken(expecting: "expected a value")
                let valueStart = cursor
                switch valueByte {
                case JSONBytes.quote:
                    let value = try scanString()
                    Self.appendField(
                        to: records, prefix: prefixStart, prefixCount, key: key, value: value, kind: .string)
                case JSONBytes.minus, JSONBytes.zero...JSONBytes.nine:
                    let count = try scanNumber()
                    let value = JSONStringExtent(start: valueStart, count: count, hasEscapes: false)
                    Self.appendField(
                        to: records, prefix: prefixStart, prefixCount, key: key, value: value, kind: .number)
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let (kind, count) = try scanLiteral()
                    let value = JSONStringExtent(start: valueStart, count: kind == .null ? 0 : count, hasEscapes: false)
                    Self.appendField(to: records, prefix: prefixStart, prefixCount, key: key, value: value, kind: kind)
                case JSONBytes.openBrace where flattens:
                    guard depth < maxDepth else { throw tooDeep(at: cursor) }
                    cursor += 1
                    prefixStarts[depth] = prefixStart
                    prefixCounts[depth] = prefixCount
                    let path = Self.appendName(
                        to: records, prefix: prefixStart, prefixCount, key: key, suffix: JSONBytes.dot)
                    prefixStart = path.start
                    prefixCount = path.count
                    depth += 1
                    atFirstMember = true
                    continue
                case JSONBytes.openBracket, JSONBytes.openBrace:
                    let name = Self.appendName(to: records, prefix: prefixStart, prefixCount, key: key, suffix: nil)
                    let textStart = records.byteCount
                    try compactValue(into: records, depth: depth)
                    records.appendSlot(
                        start: textStart, count: records.byteCount - textStart, nameStart: name.start,
                        nameCount: name.count, kind: .json)
                default:
                    throw unexpectedByte(at: cursor, expecting: "expected a value")
                }
            }
            // After a member: ',' for the next one, or '}' closing this object and maybe the ones around it.
            while true {
                let next = try peekToken(expecting: "expected ',' or '}' after an object member")
                if next == JSONBytes.comma {
                    cursor += 1
                    atFirstMember = false
                    break
                }
                guard next == JSONBytes.closeBrace else {
                    throw unexpectedByte(at: cursor, expecting: "expected ',' or '}' after an object member")
                }
                cursor += 1
                if depth == outermost { return }
                depth -= 1
                prefixStart = prefixStarts[depth]
                prefixCount = prefixCounts[depth]
            }
        }
    }

    /// Appends one field: its name (the key path prefix already in `records`, then the unescaped key) and its
    /// value (unescaped when it has escapes), with one reservation for both.
    @inline(__always)
    static func appendField(
        to records: RecordBuffer, prefix prefixStart: Int, _ prefixCount: Int, key: JSONStringExtent,
        value: JSONStringExtent, kind: FieldKind
    ) {
        let target = records.reserveBytes(prefixCount + key.count + value.count)
        if prefixCount > 0 { target.copyMemory(from: records.bytes + prefixStart, byteCount: prefixCount) }
        let nameCount = prefixCount + unescape(key, to: target + prefixCount)
        let valueCount = unescape(value, to: target + nameCount)
        let nameStart = records.commitBytes(nameCount + valueCount)
        records.appendSlot(
            start: nameStart + nameCount, count: valueCount, nameStart: nameStart, nameCount: nameCount, kind: kind)
    }

    /// Appends a name on its own: `prefix + key`, then `suffix` (the `.` that makes a nested object's key path);
    /// returns where it is.
    private static func appendName(
        to records: RecordBuffer, prefix prefixStart: Int, _ prefixCount: Int, key: JSONStringExtent, suffix: UInt8?
    ) -> (start: Int, count: Int) {
        let target = records.reserveBytes(prefixCount + key.count + 1)
        if prefixCount > 0 { target.copyMemory(from: records.bytes + prefixStart, byteCount: prefixCount) }
        var count = prefixCount + unescape(key, to: target + prefixCount)
        if let suffix {
            target.storeBytes(of: suffix, toByteOffset: count, as: UInt8.self)
            count += 1
        }
        return (records.commitBytes(count), count)
    }
}

private let emptyObjectText: StaticString = "{}"
