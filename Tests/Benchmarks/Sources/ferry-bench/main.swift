// In-process throughput of FerryIO's readers and writers, without process start-up or argument parsing.
//
//   ferry-bench read FILE [--repeat N]        read every record (format from the extension), touch every field
//   ferry-bench convert INPUT OUTPUT          read and write (format from the extensions)
//   ferry-bench context-insert CSV STORE [--chunk N] [--contexts N]
//                                             insert every record through N background contexts (default 2)
//                                             taking chunks in turn, saving and resetting every N records
//                                             (default 10,000)
//   ferry-bench batch-insert CSV STORE [--chunk N] [--defer-indexes] [--packed]
//                                             direct-to-store batch inserts of N positional rows (with
//                                             --defer-indexes: into an empty table whose indexes are built at the
//                                             end; with --packed: PackedRows filled from the fields' bytes, the
//                                             importer's hot path, rather than arrays of values)
//   ferry-bench batch-upsert CSV STORE [--chunk N] [--packed]   the same as upserts (object-trump)
//   ferry-bench walk STORE [--limit N] [--batch N] [--sort KEY]
//                                             walk a fetch with fetchBatchSize N (default 1,000); prints peak RSS
//   ferry-bench merge-batch-update STORE [--rows N] [--registered N] [--repeat N]
//                                             batch-update every product of a store of N rows (default 1,000,000;
//                                             filled by batch inserts when smaller) and time only the merge into a
//                                             context holding N loaded products (default 1,000)
//
// Prints one line per run: records, seconds, MB/s of input.
import FerryIO
import Foundation

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            ("usage: ferry-bench read FILE [--repeat N] | convert INPUT OUTPUT"
                + " | context-insert CSV STORE [--chunk N] [--contexts N]"
                + " | batch-insert CSV STORE [--chunk N] [--defer-indexes] [--packed]"
                + " | batch-upsert CSV STORE [--chunk N] [--packed]"
                + " | walk STORE [--limit N] [--batch N] [--sort KEY]"
                + " | merge-batch-update STORE [--rows N] [--registered N] [--repeat N]\n").utf8))
    exit(64)
}

func format(of path: String) -> RecordFormat {
    guard let format = RecordFormat(inferringFrom: path) else { usage() }
    return format
}

/// Reads every record and sums field lengths, so no work can be skipped.
func readAll(_ path: String) throws -> (records: Int, checksum: Int) {
    let reader = try format(of: path).openReader(path: path)
    var records = 0
    var checksum = 0
    while let record = try reader.next() {
        records += 1
        for index in 0..<record.count { checksum &+= record[index].byteCount }
    }
    return (records, checksum)
}

func report(_ what: String, records: Int, seconds: Double, bytes: Int) {
    let megabytes = Double(bytes) / 1_000_000
    print(
        String(
            format: "%@: %d records in %.3f s, %.0f MB/s, %.0f records/s", what, records, seconds,
            megabytes / seconds, Double(records) / seconds))
}

let arguments = Array(CommandLine.arguments.dropFirst())

/// The integer after `name` in the arguments, if any.
func option(_ name: String) -> Int? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return Int(arguments[index + 1])
}
guard let command = arguments.first else { usage() }
do {
    switch command {
    case "read":
        guard arguments.count >= 2 else { usage() }
        let path = arguments[1]
        let repeats = arguments.count >= 4 && arguments[2] == "--repeat" ? Int(arguments[3]) ?? 1 : 1
        let bytes = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        for _ in 0..<repeats {
            let started = Date()
            let (records, _) = try readAll(path)
            report("read \(path)", records: records, seconds: Date().timeIntervalSince(started), bytes: bytes)
        }
    case "convert":
        guard arguments.count == 3 else { usage() }
        let bytes = (try FileManager.default.attributesOfItem(atPath: arguments[1])[.size] as? Int) ?? 0
        let started = Date()
        let reader = try format(of: arguments[1]).openReader(path: arguments[1])
        let writer = try format(of: arguments[2]).openWriter(path: arguments[2])
        let records = try RecordCopier(from: reader, to: writer).copyAll()
        report("convert", records: records, seconds: Date().timeIntervalSince(started), bytes: bytes)
    case "context-insert":
        guard arguments.count >= 3 else { usage() }
        try await contextInsert(
            csv: arguments[1], store: arguments[2], chunk: option("--chunk") ?? 10_000,
            contextCount: option("--contexts") ?? 2)
    case "batch-insert", "batch-upsert":
        guard arguments.count >= 3 else { usage() }
        try await batchInsert(
            csv: arguments[1], store: arguments[2], chunk: option("--chunk") ?? 50_000,
            upsert: command == "batch-upsert", defersIndexes: arguments.contains("--defer-indexes"),
            packed: arguments.contains("--packed"))
    case "walk":
        guard arguments.count >= 2 else { usage() }
        let sort = arguments.firstIndex(of: "--sort").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        try await walk(
            store: arguments[1], limit: option("--limit") ?? 0, batch: option("--batch") ?? 1_000, sort: sort)
    case "merge-batch-update":
        guard arguments.count >= 2 else { usage() }
        try await mergeBatchUpdate(
            store: arguments[1], rows: option("--rows") ?? 1_000_000, registered: option("--registered") ?? 1_000,
            repeats: option("--repeat") ?? 5)
    default:
        usage()
    }
} catch {
    FileHandle.standardError.write(Data("ferry-bench: \(error)\n".utf8))
    exit(65)
}
