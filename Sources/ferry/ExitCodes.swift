import ArgumentParser
import FerryIO
import FerryPipeline
import FerryStore
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
    /// Another run holds the store; retry later.
    static let locked = ExitCode(75)
    /// The pipeline or model file is invalid.
    static let configuration = ExitCode(78)
    /// Stopped by SIGINT or SIGTERM at a chunk boundary.
    static let interrupted = ExitCode(130)

    /// The exit code for a FerryIO failure.
    static func forError(_ error: FerryIOError) -> ExitCode {
        switch error.code {
        case .fileNotFound, .permissionDenied: noInput
        case .io: ioError
        default: dataError
        }
    }
}

/// The exit code for any error a command lets through, and the message to print.
func exitCode(for error: any Error) -> ExitCode {
    switch error {
    case let error as FerryIOError:
        return FerryExitCode.forError(error)
    case let error as PipelineError:
        switch error.code {
        case .invalidSpec: return FerryExitCode.configuration
        case .storeLocked: return FerryExitCode.locked
        case .inputMissing: return FerryExitCode.noInput
        case .interrupted: return FerryExitCode.interrupted
        case .invalidExport: return FerryExitCode.usage
        case .outputExists: return FerryExitCode.ioError
        default: return FerryExitCode.dataError
        }
    case is ModelError, is PipelineFileError:
        return FerryExitCode.configuration
    case let error as StoreError:
        switch error.code {
        case .incompatibleModel, .noStoredModel, .invalidStoredModel: return FerryExitCode.configuration
        case .fileNotFound: return FerryExitCode.noInput
        case .constraintConflict, .missingMandatoryProperty, .invalidBatchRequest: return FerryExitCode.dataError
        default: return FerryExitCode.ioError
        }
    case is FetchPredicateError, is FetchRequestError:
        return FerryExitCode.usage
    case is FerryStore.ValidationError:
        return FerryExitCode.dataError
    default:
        return FerryExitCode.ioError
    }
}

/// Runs `body`; any error is printed to standard error as `ferry: error: …` and becomes its exit code.
func reportingFailures<Result>(_ body: () async throws -> Result) async throws -> Result {
    do {
        return try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        printError("error: \(error)")
        throw exitCode(for: error)
    }
}

/// Runs `body`; any error is printed to standard error as `ferry: error: …` and becomes its exit code.
func reportingFailures<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as ExitCode {
        throw error
    } catch let error as ArgumentParser.ValidationError {
        throw error  // swift-argument-parser prints usage errors itself (exit 64)
    } catch {
        printError("error: \(error)")
        throw exitCode(for: error)
    }
}

/// Writes one line to standard error, prefixed with `ferry: `.
func printError(_ message: String) {
    FileHandle.standardError.write(Data("ferry: \(message)\n".utf8))
}
