import Foundation
import Yams

extension PipelineFileParser {
    static let publishKeys = ["name", "entity", "to", "table", "mode", "fields", "where", "chunkSize", "maxRejects", "rejects"]

    /// A `publish:` step: `{ entity: Product, to: $CATALOG_DATABASE_URL, table: products, mode: upsert }`. `to` is a
    /// PostgreSQL URL, or `$NAME` for the URL in the environment variable NAME (read when the step runs), so that
    /// no password need be written in the pipeline file.
    mutating func parsePublish(_ node: Node, line: Int, keyPath: String) -> PipelineStep? {
        guard let fields = fields(node, keyPath, Self.publishKeys),
            let entity = required(fields, "entity", node, keyPath), let to = required(fields, "to", node, keyPath)
        else { return nil }
        var spec = PublishSpec(entity: entity, to: to, table: fields["table"].flatMap { reader.string($0, keyPath + ".table") })
        if let node = fields["mode"],
            let mode = reader.choice(node, keyPath + ".mode", PublishSpec.Mode.allCases.map { ($0.rawValue, $0) })
        {
            spec.mode = mode
        }
        spec.fields = fields["fields"].flatMap { reader.strings($0, keyPath + ".fields") }
        spec.predicate = fields["where"].flatMap { reader.string($0, keyPath + ".where") }
        if let node = fields["chunkSize"] {
            spec.chunkSize = reader.int(node, keyPath + ".chunkSize", minimum: 1) ?? spec.chunkSize
        }
        if let node = fields["maxRejects"] {
            spec.maxRejects = reader.int(node, keyPath + ".maxRejects", minimum: 0) ?? spec.maxRejects
        }
        spec.rejectsPath = fields["rejects"].flatMap { reader.string($0, keyPath + ".rejects") }.map(resolve)
        let name = fields["name"].flatMap { reader.string($0, keyPath + ".name") } ?? "publish \(entity)"
        return PipelineStep(name: name, line: line, action: .publish(spec))
    }
}

extension PublishSpec {
    /// The connection string to use: `url`, or for `$NAME` the environment variable NAME's value.
    ///
    /// - Throws: ``PipelineError`` `.invalidSpec` when the variable is not set.
    func resolvedURL(environment: [String: String]) throws -> String {
        guard url.hasPrefix("$") else { return url }
        let name = String(url.dropFirst()).trimmingCharacters(in: ["{", "}"])
        guard let value = environment[name], !value.isEmpty else {
            throw PipelineError(
                .invalidSpec, "publish \(entity): to: names the environment variable \(name), which is not set")
        }
        return value
    }
}
