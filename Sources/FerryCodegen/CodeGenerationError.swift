/// A failure to write generated code: what went wrong, and the file or folder.
public struct CodeGenerationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The file or folder it concerns.
    public var path: String

    /// An error about `path`.
    public init(_ message: String, path: String) {
        self.message = message
        self.path = path
    }

    public var description: String { "\(path): \(message)" }
}
