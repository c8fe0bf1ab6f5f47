import FerryIO
import Synchronization

/// What a step learns about its inputs before reading their records, read once per input for the step: each
/// input's header, and whether a JSON input's records carry member names (``MemberNameColumn``).
///
/// Validating a pipeline, checking a schema contract and planning the run each need an input's header; an
/// ``ImportSpec`` and its copies share one of these, so the first asks the file and the others are answered from
/// memory. Should the file change in between, the run still reads the header it finds (each input's
/// ``RecordPacker`` maps by the header read with its records), so a stale answer cannot misplace a value; a column
/// the plan needs and the file lost fails as it would have.
final class InputHeaders: Sendable {
    /// An input as read: a spec's copy may name other inputs or read them otherwise, and is then asked anew.
    struct Input: Hashable {
        var path: String
        var format: RecordFormat?
        var dialect: CSVDialect?
        var jsonOptions: JSONReaderOptions
    }

    private struct Known {
        var headers: [Input: [String]?] = [:]
        var storesMemberNames: [Input: Bool] = [:]
    }

    private let known = Mutex(Known())

    /// The header of `input`, read by `read` the first time it is asked for.
    func header(of input: Input, read: () throws -> [String]?) rethrows -> [String]? {
        if let header = known.withLock({ $0.headers[input] }) { return header }
        let header = try read()
        known.withLock { $0.headers[input] = header }
        return header
    }

    /// Whether `input`'s records carry member names, found by `find` the first time it is asked for.
    func storesMemberNames(of input: Input, find: () -> Bool) -> Bool {
        if let stores = known.withLock({ $0.storesMemberNames[input] }) { return stores }
        let stores = find()
        known.withLock { $0.storesMemberNames[input] = stores }
        return stores
    }
}

extension ImportSpec {
    /// Input `index` as ``InputHeaders`` knows it; `nil` past the inputs.
    func headerKey(ofInput index: Int) -> InputHeaders.Input? {
        guard index < sources.count else { return nil }
        return InputHeaders.Input(path: sources[index], format: format, dialect: dialect, jsonOptions: jsonOptions)
    }
}
