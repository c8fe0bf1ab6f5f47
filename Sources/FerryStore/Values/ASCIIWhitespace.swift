extension UInt8 {
    /// Space, tab, line feed, carriage return, vertical tab or form feed: what trimming removes.
    @inline(__always)
    package var isASCIIWhitespace: Bool {
        self == 0x20 || (self >= 0x09 && self <= 0x0D)
    }
}

extension UnsafeRawBufferPointer {
    /// The bytes without ASCII whitespace at either end (see `UInt8.isASCIIWhitespace`): how an import's
    /// converters and a migration's conversions read a field or a stored text.
    package func trimmingASCIIWhitespace() -> UnsafeRawBufferPointer {
        var start = 0
        var end = count
        while start < end, self[start].isASCIIWhitespace { start += 1 }
        while end > start, self[end - 1].isASCIIWhitespace { end -= 1 }
        if start == 0 && end == count { return self }
        return UnsafeRawBufferPointer(rebasing: self[start..<end])
    }
}
