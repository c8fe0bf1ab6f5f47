import FerrySQLite

/// Externally stored binary values as a snapshot sees them: a binary column holding the TEXT
/// `ferry-blob:sha256:<64 lowercase hex digits>` refers to the file `<2 hex>/<hex>` in the folder
/// `<store path>-blobs/` beside the store.
extension ReadSnapshot {
    /// The text every reference starts with.
    package static let blobReferencePrefix = "ferry-blob:sha256:"

    /// The folder of the store's blob files: `<store path>-blobs`.
    package var blobFolderPath: String { path + "-blobs" }

    /// The path, inside the blob folder, of the file a column's text refers to (`9f/9f86…`), or `nil` unless the
    /// text has exactly the shape of a reference: nothing else a column holds can name a file.
    package static func blobRelativePath(ofReference text: UnsafeRawBufferPointer) -> String? {
        let prefix = blobReferencePrefix.utf8
        guard text.count == prefix.count + 64, text.starts(with: prefix) else { return nil }
        let hash = text[prefix.count...]
        guard hash.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        let hex = String(decoding: hash, as: UTF8.self)
        return "\(hex.prefix(2))/\(hex)"
    }

    /// The blob files (paths inside the blob folder) that the snapshot's rows refer to, sorted.
    ///
    /// - Throws: ``StoreError`` `.sqlite`.
    package func blobReferences() throws -> [String] {
        var columns: Set<[String]> = []
        for mapping in schema.entities.values {
            for attribute in mapping.attributes where attribute.type == .binary {
                columns.insert([mapping.table, attribute.name])
            }
        }
        var files: Set<String> = []
        for column in columns {
            let name = SQL.identifier(column[1])
            for row in try rows(
                "SELECT DISTINCT \(name) FROM \(SQL.identifier(column[0])) WHERE typeof(\(name)) = 'text'")
            {
                guard let text = row[0].text else { continue }
                let relative = Array(text.utf8).withUnsafeBytes { Self.blobRelativePath(ofReference: $0) }
                if let relative { files.insert(relative) }
            }
        }
        return files.sorted()
    }
}
