import FerryIO

/// The names of JSON fields that no column of an import reads, in the order they first appear: a CSV input's
/// unread columns are known from its header before the run, a JSON input's only from its records, which may each
/// carry other fields.
///
/// ``RecordPacker`` marks the fields it reads of each record; a record whose every field was read costs a bit count.
/// Only a record with a field left unmarked has its names compared, with the names read (a key repeated in one
/// record is read once) and with those found already.
struct UnreadFieldNames {
    /// The names the plan's columns read, as UTF-8.
    private let readNames: [[UInt8]]
    /// The names found so far, as UTF-8, in ``names``' order.
    private var found: [[UInt8]] = []
    /// The names found so far.
    private(set) var names: [String] = []

    init(readNames: [String]) {
        self.readNames = readNames.map { Array($0.utf8) }
    }

    /// Notes the fields of `record` that `readFields` (one bit per field index below 64) does not mark as read.
    mutating func note(_ record: Record, readFields: UInt64) {
        guard record.count > readFields.nonzeroBitCount else { return }
        for index in 0..<record.count where index >= UInt64.bitWidth || readFields & (1 << UInt64(index)) == 0 {
            record[index].withUnsafeNameBytes { name in
                guard !readNames.contains(where: { name.elementsEqual($0) }),
                    !found.contains(where: { name.elementsEqual($0) })
                else { return }
                found.append(Array(name))
                names.append(String(decoding: name, as: UTF8.self))
            }
        }
    }
}
