extension BatchUpdateRequest {
    /// Checks the request against `model` as executing it would, without a store: the entity exists, the predicate
    /// fits it, and each new value or expression fits the attribute it is assigned to. The model's value rules
    /// (optionality, ranges, lengths, patterns) are checked on the new values when the request runs.
    ///
    /// - Throws: ``StoreError`` `.invalidBatchRequest` naming the entity and attribute, ``FetchPredicateError`` from
    ///   the predicate.
    public func validate(in model: ManagedObjectModel) throws {
        let schema = StoreSchema(model: model)
        guard let mapping = schema.mapping(for: entityName) else {
            throw StoreError(.invalidBatchRequest, "batch update: the model has no entity '\(entityName)'")
        }
        try predicate?.validate(forEntity: entityName, in: model)
        let compiler = BatchUpdateCompiler(mapping: mapping, model: model, now: 0)
        for name in propertiesToUpdate.keys.sorted() {
            guard let expression = propertiesToUpdate[name] else { continue }
            _ = try compiler.assignment(to: name, expression)
        }
    }
}
