/// The primary keys (and entities) of a fetch's objects in fetch order, packed small so that a fetch of millions
/// of rows with `fetchBatchSize` holds a few bytes per row, not an ``ObjectID`` each.
///
/// Keys are stored in blocks of `blockSize`: each key as the zig-zag varint of its difference from the one
/// before (1 to 3 bytes for keys of a table up to a few million rows, in any order). A block is decoded whole,
/// which is how batches are read. The entity of each key is kept only when the fetch returned more than one.
struct CompactObjectKeys {
    let blockSize: Int
    private(set) var count = 0
    private var bytes: [UInt8] = []
    /// The byte offset where each block starts.
    private var blockStarts: [Int] = []
    private var previous: Int64 = 0
    private(set) var entityNames: [String] = []
    /// One entry per key once a second entity appeared; empty while every key has `entityNames[0]`.
    private var entityIndexes: [UInt16] = []

    init(blockSize: Int) {
        precondition(blockSize > 0, "a block holds at least one key")
        self.blockSize = blockSize
    }

    mutating func append(_ key: Int64, entity: String) {
        if count % blockSize == 0 {
            blockStarts.append(bytes.count)
            previous = 0
        }
        let delta = key &- previous
        var zigzag = UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
        previous = key
        appendEntity(entity)
        count += 1
    }

    private mutating func appendEntity(_ entity: String) {
        if entityNames.isEmpty { entityNames.append(entity) }
        if entityIndexes.isEmpty && entity == entityNames[0] { return }
        var index = entityNames.firstIndex(of: entity)
        if index == nil {
            entityNames.append(entity)
            index = entityNames.count - 1
        }
        if entityIndexes.isEmpty { entityIndexes = Array(repeating: 0, count: count) }
        entityIndexes.append(UInt16(index ?? 0))
    }

    /// How many blocks the keys fill.
    var blockCount: Int { blockStarts.count }

    /// The keys of block `block`, with each key's entity name.
    func block(_ block: Int) -> [(key: Int64, entity: String)] {
        let first = block * blockSize
        let size = min(blockSize, count - first)
        var offset = blockStarts[block]
        var previous: Int64 = 0
        var keys: [(key: Int64, entity: String)] = []
        keys.reserveCapacity(size)
        for position in first..<first + size {
            var zigzag: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[offset]
                offset += 1
                zigzag |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            let delta = Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
            previous = previous &+ delta
            let entity = entityIndexes.isEmpty ? entityNames[0] : entityNames[Int(entityIndexes[position])]
            keys.append((previous, entity))
        }
        return keys
    }
}
