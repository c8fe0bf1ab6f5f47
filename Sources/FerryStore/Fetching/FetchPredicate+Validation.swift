extension FetchPredicate {
    /// Checks the predicate against `entity` of `model` as a fetch of that entity would, without a store: every
    /// key path names a property the entity reaches, and every comparison's operands fit their types. A pipeline
    /// checks its predicates this way before its first step writes.
    ///
    /// ```swift
    /// try FetchPredicate(format: "category.nmae == 'Tea'").validate(forEntity: "Product", in: model)  // throws
    /// ```
    ///
    /// - Throws: ``FetchPredicateError`` as the fetch would, naming the key path or comparison that does not fit.
    public func validate(forEntity entity: String, in model: ManagedObjectModel) throws {
        var compiler = PredicateCompiler(schema: StoreSchema(model: model), entity: entity, predicate: self)
        _ = try compiler.compile(self)
    }
}
