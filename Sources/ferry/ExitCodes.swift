import ArgumentParser
import FerryIO
import Foundation

/// The exit codes a cron wrapper can act on (sysexits.h values).
enum FerryExitCode {
    /// Bad arguments; swift-argument-parser uses the same code for validation errors.
    static let usage = ExitCode(64)
    /// Malformed input data.
    static let dataError = ExitCode(65)
    /// An input file is missing or unreadable.
    static let noInput = ExitCode(66)
    /// Reading or writing failed.
    static let ioError = ExitCode(74)

    /// The exit code for a FerryIO failure.
    static func forError(_ error: FerryIOError) -> ExitCode {
        switch error.code {
        case .fileNotFound, .permissionDenied: noInput
        case .io: ioError
        default: dataError
        }
    }
}

/// Runs `body`; a `FerryIOError` is printed to standard error as `ferry: error: …` and becomes its exit code.
func reportingFailures<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as FerryIOError {
        printError("error: \(error)")
        throw FerryExitCode.forError(error)
    }
}

/// Writes one line to standard error, prefixed with `ferry: `.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("ferry: \(message)\n".utf8))
}
