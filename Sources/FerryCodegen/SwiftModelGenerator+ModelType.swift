import FerryStore

/// The model type: the model embedded as the YAML model file it reads back from (same version hash), its classes'
/// registration, and a container made with both.
extension SwiftModelGenerator {
    func modelType() -> String {
        let yaml = model.modelFileYAML
        let hashes = String(repeating: "#", count: longestHashRun(in: yaml) + 1)
        let entities = entityNames
        var lines = [
            "/// The model of \(source), built into the program: no model file is read at run time.",
            "///",
            "/// ```swift",
            "/// let container = \(modelTypeName).makeContainer(",
            "///     name: \"App\", storeDescription: PersistentStoreDescription(path: \"app.sqlite\"))",
            "/// try await container.loadPersistentStores()",
            "/// ```",
            "\(access)enum \(modelTypeName) {",
            "    /// The model, as a model file in Ferry's YAML (generated from \(source)).",
            "    \(access)static let yaml: \(typeName("String")) = \(hashes)\"\"\"",
        ]
        let body = yaml.hasSuffix("\n") ? String(yaml.dropLast()) : yaml
        lines += body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "    " + $0 }
        lines += [
            "    \"\"\"\(hashes)",
            "",
            "    /// The model's version hash when it was generated; a store made with this model records the same.",
            "    \(access)static let versionHash: \(typeName("String")) = \(literal(model.versionHash))",
            "",
            "    /// The model, read from ``yaml`` once. It was checked when the code was generated, so failing to",
            "    /// read it means FerryStore changed underneath the generated code: regenerate it.",
            "    \(access)static let model: \(typeName("ManagedObjectModel")) = {",
            "        do {",
            "            return try \(typeName("ManagedObjectModel"))(yaml: yaml, path: \(literal(source)))",
            "        } catch {",
            "            preconditionFailure(\"the model embedded in \(modelTypeName) does not load: \\(error)\")",
            "        }",
            "    }()",
            "",
            "    /// Registers the generated class of every entity with `container`, before it loads its store.",
            "    \(access)static func registerClasses(in container: \(typeName("PersistentContainer"))) {",
        ]
        for entity in entities {
            lines.append("        container.register(\(entity).self, forEntity: \(literal(entity)))")
        }
        lines += [
            "    }",
            "",
            "    /// A container for ``model`` with the generated classes registered; load its store next.",
            "    \(access)static func makeContainer(",
            "        name: \(typeName("String")), storeDescription: \(typeName("PersistentStoreDescription"))? = nil",
            "    ) -> \(typeName("PersistentContainer")) {",
            "        let container = \(typeName("PersistentContainer"))(",
            "            name: name, model: model, storeDescription: storeDescription)",
            "        registerClasses(in: container)",
            "        return container",
            "    }",
            "}",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The longest run of `#` in `text`: a raw string literal needs one more, so nothing inside can end it.
    private func longestHashRun(in text: String) -> Int {
        var longest = 0
        var run = 0
        for character in text.utf8 {
            run = character == UInt8(ascii: "#") ? run + 1 : 0
            longest = max(longest, run)
        }
        return longest
    }
}
