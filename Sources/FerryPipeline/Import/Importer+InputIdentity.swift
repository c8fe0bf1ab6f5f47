import FerryStore
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// What identifies a run's inputs, so that `--resume` never continues a run over inputs that changed: their size and
/// modification time, recorded with the run before its first chunk commits, and their SHA-256, recorded as soon as
/// the pass that computes it ends.
extension Importer {
    /// The size and modification time of the input at `path` now (nothing for standard input).
    ///
    /// - Throws: ``PipelineError`` `.inputMissing` when there is no such file.
    static func identity(_ path: String) throws -> InputDigest {
        guard path != "-" else { return InputDigest(path: path, sha256: nil, bytes: nil) }
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw PipelineError(.inputMissing, "no such input file: \(path)")
        }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        return InputDigest(path: path, sha256: nil, bytes: Int(status.st_size), modified: modified)
    }

    /// `identities` with the SHA-256 of each file. A file whose size or modification time changed since its identity
    /// was taken gets none: its digest would not be that of the bytes the run read.
    ///
    /// - Throws: ``PipelineError`` `.inputMissing` when a file cannot be read.
    static func digests(of identities: [InputDigest], logger: Logger) throws -> [InputDigest] {
        try identities.map { identity in
            guard identity.path != "-" else { return identity }
            let hash: String
            do {
                hash = try FileDigest.sha256Hex(ofFileAt: identity.path)
            } catch let error as StoreError {
                throw PipelineError(.inputMissing, "\(identity.path): \(error.message)")
            }
            guard try Self.identity(identity.path) == identity else {
                logger.warning("\(identity.path) changed while it was imported; its SHA-256 is not recorded")
                return identity
            }
            var digest = identity
            digest.sha256 = hash
            return digest
        }
    }

    /// Refuses to resume `previous` unless `sources` are the inputs it read: the same SHA-256 where it recorded
    /// one, otherwise the same size and modification time (a run killed before its digests were known). Standard
    /// input, or a run that recorded nothing of its inputs, cannot be checked, and is not resumed.
    ///
    /// - Throws: ``PipelineError`` `.cannotResume` saying which input differs or cannot be checked.
    static func checkInputsUnchanged(_ sources: [String], since previous: RunLedger.Run, name: String) throws {
        let again = "run without --resume to import them afresh"
        guard !previous.inputs.isEmpty else {
            throw PipelineError(
                .cannotResume,
                "run \(previous.id) of '\(name)' recorded no identity of its inputs, so they cannot be checked to be "
                    + "unchanged; \(again)")
        }
        guard previous.inputs.map(\.path) == sources else {
            throw PipelineError(
                .cannotResume, "run \(previous.id) of '\(name)' read other inputs than these; \(again)")
        }
        for recorded in previous.inputs {
            guard recorded.path != "-", let bytes = recorded.bytes else {
                throw PipelineError(
                    .cannotResume,
                    "run \(previous.id) of '\(name)' read \(recorded.path == "-" ? "standard input" : recorded.path), "
                        + "which cannot be checked to be unchanged; \(again)")
            }
            let current = try identity(recorded.path)
            if let sha256 = recorded.sha256 {
                let currentHash: String
                do {
                    currentHash = try FileDigest.sha256Hex(ofFileAt: recorded.path)
                } catch let error as StoreError {
                    throw PipelineError(.inputMissing, "\(recorded.path): \(error.message)")
                }
                guard currentHash == sha256 else {
                    throw PipelineError(
                        .cannotResume,
                        "the inputs changed since run \(previous.id) of '\(name)' (the SHA-256 of \(recorded.path) "
                            + "differs); \(again)")
                }
            } else {
                guard let modified = recorded.modified else {
                    throw PipelineError(
                        .cannotResume,
                        "run \(previous.id) of '\(name)' recorded neither the SHA-256 nor the modification time of "
                            + "\(recorded.path), so it cannot be checked to be unchanged; \(again)")
                }
                guard current.bytes == bytes, current.modified == modified else {
                    throw PipelineError(
                        .cannotResume,
                        "the inputs changed since run \(previous.id) of '\(name)' (\(recorded.path) has another size "
                            + "or modification time, and the run ended before its SHA-256 was recorded); \(again)")
                }
            }
        }
    }

    /// Marks the runs a dead process left running as killed (the caller holds the store's lock).
    func markEndedRunsKilled(_ ledger: RunLedger) async throws {
        let killed = try await ledger.markEndedRunsKilled()
        if !killed.isEmpty {
            let runs = killed.map(String.init).joined(separator: ", ")
            logger.warning("runs \(runs) were running when their process ended; marked killed")
        }
    }
}
