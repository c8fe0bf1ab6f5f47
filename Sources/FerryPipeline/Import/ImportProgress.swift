/// How far an import step has come, reported after each committed chunk.
public struct ImportProgress: Sendable {
    /// The input being read.
    public var inputPath: String
    /// Bytes of it read so far.
    public var bytesRead: Int
    /// The step's counts so far.
    public var counts: StepCounts
    /// The pipeline step running the import (`import Product`), `nil` for an import run on its own.
    public var step: String? = nil
}
