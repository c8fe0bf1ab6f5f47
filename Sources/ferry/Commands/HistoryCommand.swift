import ArgumentParser
import FerryPipeline
import FerryStore
import Foundation

/// `ferry history`: the persistent-history transactions of a store, with their changes.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a store's persistent-history transactions and the objects each changed.",
        discussion: """
            Every save and batch request on a store that records history is a transaction with a token (a number \
            that only grows), a timestamp, an author and its changes: insert, update (with the properties changed) \
            or delete (with the deleted object's unique keys, its tombstone). --after TOKEN lists only later \
            transactions, so a consumer can keep the last token it saw; --author keeps one writer's transactions. \
            --limit N lists at most N: the latest N, or with --after the first N after that token (page forward \
            with the last token listed).

            Examples:
              ferry history --store catalog.sqlite
              ferry history --store catalog.sqlite --limit 5
              ferry history --store catalog.sqlite --after 120 --author nightly-import
              ferry history --store catalog.sqlite --json | jq '.[].changes | length'
            """
    )

    @OptionGroup var location: StoreOptions

    @Option(help: "List only the transactions after this token.")
    var after: Int64?

    @Option(help: "List only the transactions of this author.")
    var author: String?

    @Option(help: "List at most this many transactions: the latest, or the first after --after.")
    var limit: Int?

    @Flag(help: "Print JSON instead of text.")
    var json = false


    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let logger = logging.bootstrap()
        let transactions = try await reportingFailures { () async throws -> [HistoryTransaction] in
            try await location.reading(logger: logger) { session in
                try await session.container.persistentStore.fetchHistory(after: after, author: author, limit: limit)
            }
        }
        let entries = transactions.map(Entry.init)
        if json {
            print(RunReport.json(entries), terminator: "")
        } else {
            print(entries.map(\.text).joined(), terminator: "")
        }
    }

    /// One transaction as printed.
    struct Entry: Encodable {
        struct Change: Encodable {
            var kind: String
            var entity: String
            var pk: Int64
            var updated: [String]?
            var tombstone: [String: ManifestValue]?
        }

        var token: Int64
        var timestamp: String
        var author: String?
        var contextName: String?
        var changes: [Change]

        enum CodingKeys: String, CodingKey {
            case token, timestamp, author, changes
            case contextName = "context_name"
        }

        init(_ transaction: HistoryTransaction) {
            token = transaction.token
            timestamp = ISO8601DateFormatter().string(from: transaction.timestamp)
            author = transaction.author
            contextName = transaction.contextName
            changes = transaction.changes.map { change in
                Change(
                    kind: ["insert", "update", "delete"][change.kind.rawValue], entity: change.entityName,
                    pk: change.objectID.primaryKey,
                    updated: change.kind == .update ? change.updatedProperties.sorted() : nil,
                    tombstone: change.kind == .delete ? change.tombstone.mapValues(ManifestValue.init) : nil)
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(token, forKey: .token)
            try container.encode(timestamp, forKey: .timestamp)
            try container.encode(author, forKey: .author)
            try container.encode(contextName, forKey: .contextName)
            try container.encode(changes, forKey: .changes)
        }

        var text: String {
            var line = "#\(token) \(timestamp)"
            if let author { line += " author=\(author)" }
            if let contextName { line += " context=\(contextName)" }
            line += " (\(counted(changes.count, "change", "changes")))\n"
            for change in changes {
                line += "  \(change.kind) \(change.entity) \(change.pk)"
                if let updated = change.updated, !updated.isEmpty { line += " [\(updated.joined(separator: ", "))]" }
                if let tombstone = change.tombstone, !tombstone.isEmpty {
                    line +=
                        " {"
                        + tombstone.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.text)" }
                        .joined(separator: ", ") + "}"
                }
                line += "\n"
            }
            return line
        }
    }
}

extension ManifestValue {
    /// The value as history's text lists it: strings quoted, numbers and booleans bare.
    fileprivate var text: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .integer(let value): String(value)
        case .double(let value): String(value)
        case .decimal(let value): "\(value)"
        case .boolean(let value): String(value)
        }
    }
}
