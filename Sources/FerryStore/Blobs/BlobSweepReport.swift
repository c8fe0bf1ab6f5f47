/// What a sweep of the blob folder found and removed (see ``PersistentStore/sweepBlobs()``). Paths are relative to
/// the blob folder (`9f/9f86d0…`).
public struct BlobSweepReport: Sendable, Hashable {
    /// Blob files no row refers to: left by a crash between a file's write and its transaction's commit, or by a
    /// crash between a commit that released a file and its removal.
    public var removedFiles: [String] = []
    /// Temporary files of writes that never finished.
    public var removedTemporaryFiles: [String] = []
    /// Files that rows refer to but that are not in the folder (a folder not copied with the store, or removed by
    /// hand): reading those values fails with ``StoreError/Code/blobFileMissing``. Nothing is changed for them.
    public var missingFiles: [String] = []

    /// A report of nothing found.
    public init() {}

    /// Whether the sweep removed anything.
    public var removedAnything: Bool { !removedFiles.isEmpty || !removedTemporaryFiles.isEmpty }
}
