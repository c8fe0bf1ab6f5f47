/// Where a record came from in its input.
public struct RecordPosition: Sendable, Hashable, CustomStringConvertible {
    /// The record's number among the data records of the input, from 1. A CSV header is not counted.
    public var record: Int
    /// The line on which the record starts, from 1. CR, LF and CRLF each end one line.
    public var line: Int
    /// The offset of the record's first byte from the start of the input, from 0.
    public var byteOffset: Int

    /// Creates a position.
    public init(record: Int, line: Int, byteOffset: Int) {
        self.record = record
        self.line = line
        self.byteOffset = byteOffset
    }

    public var description: String { "record \(record), line \(line), byte \(byteOffset)" }
}
