import ArgumentParser
import FerryIO
import FerryPipeline
import FerrySQLite
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
///
/// Each error type's codes map to what they mean to the person who ran the command: their arguments (usage), the
/// data they gave (data), a file they named that is not there (no input), the machine's disks (I/O), another run
/// (locked), their pipeline or model file (configuration), or their signal (stopped). An error of a known type with
/// a code not listed maps by its type's meaning, and an SQLite error by its result code; only a failure of reading
/// or writing itself is an I/O error.
func exitCode(for error: any Error) -> ExitCode {
    switch error {
    case let error as FerryIOError:
        return FerryExitCode.forError(error)
    case let error as PipelineError:
        switch error.code {
        case .invalidSpec: return FerryExitCode.configuration
        case .storeLocked: return FerryExitCode.locked
        case .inputMissing, .corruptLedger: return FerryExitCode.noInput
        case .interrupted: return FerryExitCode.interrupted
        // `--resume` with nothing to resume, or an export asked for what it cannot do: the arguments do not fit.
        case .invalidExport, .cannotResume: return FerryExitCode.usage
        case .outputExists: return FerryExitCode.ioError
        case .tooManyRejects, .conflict, .syncGuard, .schemaViolation: return FerryExitCode.dataError
        default: return FerryExitCode.dataError
        }
    case let error as PipelineFileError:
        return error.isMissingInputOnly ? FerryExitCode.noInput : FerryExitCode.configuration
    case is ModelError:
        return FerryExitCode.configuration
    case let error as MigrationError:
        return error.code == .dataViolation || error.code == .stageFailed
            ? FerryExitCode.dataError : FerryExitCode.configuration
    case is ArgumentParser.ValidationError:
        return FerryExitCode.usage
    case let error as StoreError:
        return exitCode(for: error)
    case let error as SQLiteError:
        return exitCode(forSQLite: error)
    case is FetchPredicateError, is FetchRequestError:
        return FerryExitCode.usage
    case is FerryStore.ValidationError:
        return FerryExitCode.dataError
    case is CancellationError:
        return FerryExitCode.interrupted
    default:
        return FerryExitCode.ioError
    }
}

/// The exit code for a store error: by its code, and for SQLite failures by SQLite's result code.
private func exitCode(for error: StoreError) -> ExitCode {
    switch error.code {
    case .incompatibleModel, .noStoredModel, .invalidStoredModel, .unknownTransformer:
        return FerryExitCode.configuration
    case .fileNotFound, .notAFerryStore:
        return FerryExitCode.noInput
    case .migrationInProgress:
        return FerryExitCode.locked
    case .constraintConflict, .missingMandatoryProperty, .invalidBatchRequest, .objectNotFound,
        .invalidBlobReference, .batchDeleteDenied:
        return FerryExitCode.dataError
    case .unsupportedRequest:
        return FerryExitCode.usage
    case .blobFileMissing:
        return FerryExitCode.noInput
    case .openFailed, .blobFileFailed:
        return FerryExitCode.ioError
    default:
        // `.sqlite` and codes added later: what SQLite said, when it said something.
        if let underlying = error.underlying as? SQLiteError { return exitCode(forSQLite: underlying) }
        return FerryExitCode.ioError
    }
}

/// The exit code for an SQLite result: a refused row is data, a busy or locked database is another run, a file
/// that is not a database is not the input asked for, and disk and I/O failures are I/O.
private func exitCode(forSQLite error: SQLiteError) -> ExitCode {
    switch error.code {
    case .constraint, .mismatch: return FerryExitCode.dataError
    case .busy, .locked: return FerryExitCode.locked
    case .notADatabase: return FerryExitCode.noInput
    default: return FerryExitCode.ioError
    }
}

/// Runs `body`; any error is printed to standard error as `ferry: error: …` and becomes its exit code, which
/// `failed` is also given (so that `--json` can report the failure on standard output).
func reportingFailures<Result>(
    _ body: () async throws -> Result, failed: ((any Error, ExitCode) -> Void)? = nil
) async throws -> Result {
    do {
        return try await body()
    } catch let error as ExitCode {
        throw error
    } catch {
        printError("error: \(error)")
        let code = exitCode(for: error)
        failed?(error, code)
        throw code
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
    FileHandle.standardError.write(Data((StandardErrorStamp.prefix() + "ferry: \(message)\n").utf8))
}

/// The time at the start of each message `ferry` writes to standard error when that is not a terminal (a cron
/// job's log, a file), ISO 8601 as swift-log's lines start (`2026-11-25T02:30:00Z `), so that a log appended to
/// every night tells when each summary and error was written. A terminal shows no stamp.
enum StandardErrorStamp {
    private static let isTerminal = isatty(STDERR_FILENO) == 1

    static func prefix(_ date: Date = Date()) -> String {
        isTerminal ? "" : date.formatted(.iso8601) + " "
    }
}
