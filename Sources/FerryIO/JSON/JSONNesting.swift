/// Scratch memory for nesting, one entry per depth, owned for the life of a reader (or one document) so that
/// nesting never allocates while parsing.
///
/// ``JSONScanner`` borrows the pointers: the kind of each open container while compacting, and the key path of
/// each open object (its start and length in the record storage) while flattening.
final class JSONNesting {
    /// The most containers open at once.
    let maxDepth: Int
    /// `[` or `{` for each open container, indexed by depth.
    let containers: UnsafeMutablePointer<UInt8>
    /// The enclosing object's key path while a nested object is flattened, indexed by depth.
    let prefixStarts: UnsafeMutablePointer<Int>
    let prefixCounts: UnsafeMutablePointer<Int>

    init(maxDepth: Int) {
        precondition(maxDepth >= 0, "maxDepth must not be negative")
        self.maxDepth = maxDepth
        containers = .allocate(capacity: maxDepth + 1)
        prefixStarts = .allocate(capacity: maxDepth + 1)
        prefixCounts = .allocate(capacity: maxDepth + 1)
    }

    deinit {
        containers.deallocate()
        prefixStarts.deallocate()
        prefixCounts.deallocate()
    }
}
