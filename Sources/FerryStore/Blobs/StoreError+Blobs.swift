extension StoreError.Code {
    /// A binary column holds TEXT that is not a well-formed blob reference (`ferry-blob:sha256:` and 64 lowercase
    /// hex digits): the store was changed by something other than Ferry. No file is opened for it.
    public static let invalidBlobReference = StoreError.Code(rawValue: "invalidBlobReference", coreDataCode: 134060)
    /// A row refers to a blob file that is not in the blob folder (Core Data raises an exception here;
    /// `NSFileReadNoSuchFileError`).
    public static let blobFileMissing = StoreError.Code(rawValue: "blobFileMissing", coreDataCode: 260)
    /// A blob file or the blob folder could not be read, written, synced or removed; ``StoreError/underlying``
    /// holds the ``BlobFileError`` with the path and `errno`.
    public static let blobFileFailed = StoreError.Code(rawValue: "blobFileFailed", coreDataCode: 134030)
}

extension StoreError {
    /// `.blobFileFailed` for `error`, saying what the store was doing.
    static func blobFile(_ doing: String, _ error: BlobFileError) -> StoreError {
        StoreError(.blobFileFailed, "\(doing): \(error)", path: error.path, underlying: error)
    }
}
