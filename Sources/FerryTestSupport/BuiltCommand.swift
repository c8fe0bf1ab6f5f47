public import Foundation

/// Runs an executable built by the package (such as `ferry`) the way a user would, for end-to-end tests.
public struct BuiltCommand {
    /// What one run produced.
    public struct Result {
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// The executable's location.
    public let url: URL

    /// The product named `name`, found beside the running test binary (both live in the build folder).
    public init(product name: String) {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        url = testBinary.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// The executable at `url`, such as a system tool a test runs the built product through.
    public init(url: URL) {
        self.url = url
    }

    /// Starts the command with `arguments` in `folder` without waiting for it, its input and output going nowhere:
    /// for tests that signal or kill it while it runs.
    public func start(_ arguments: [String], in folder: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the command with `arguments` under a file-size limit of `kibibytes` (bash's `ulimit -f`, with SIGXFSZ
    /// ignored, so a write past it fails with EFBIG as a write to a full disk fails), and waits for it: a full disk
    /// without one.
    public func runWithFileSizeLimit(kibibytes: Int, _ arguments: [String], in folder: URL) throws -> Result {
        try BuiltCommand(url: URL(fileURLWithPath: "/bin/bash")).run(
            ["-c", #"trap '' XFSZ; ulimit -f \#(kibibytes); exec "$0" "$@""#, url.path] + arguments, in: folder)
    }

    /// Runs the command with `arguments` in `folder` on a pseudo-terminal (made by util-linux's `script`), as a
    /// person at a terminal runs it, and waits for it: standard output and standard error both go to the terminal,
    /// whose bytes the result's `standardOutput` holds (carriage returns and escape sequences included).
    public func runOnATerminal(_ arguments: [String], in folder: URL) throws -> Result {
        let command = ([url.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try BuiltCommand(url: URL(fileURLWithPath: "/usr/bin/script")).run(
            ["--quiet", "--return", "--command", command, "/dev/null"], in: folder)
    }

    /// Runs the command with `arguments`, feeding `input` on standard input, and waits for it.
    public func run(_ arguments: [String], input: Data? = nil, in folder: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        let output = Pipe()
        let errors = Pipe()
        let standardInput = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = standardInput
        try process.run()
        // Read both pipes while the process runs so that neither can fill up and block it. Each buffer is
        // written by one reader and read only after group.wait(), which orders the accesses.
        let group = DispatchGroup()
        nonisolated(unsafe) var outputData = Data()
        nonisolated(unsafe) var errorData = Data()
        DispatchQueue.global().async(group: group) { outputData = output.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errorData = errors.fileHandleForReading.readDataToEndOfFile() }
        if let input { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return Result(
            status: process.terminationStatus, standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self))
    }
}
