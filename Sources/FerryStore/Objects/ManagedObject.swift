/// One object of an entity, living in one ``ManagedObjectContext``: Core Data's `NSManagedObject`.
///
/// Read and write its properties by key, untyped or typed, or through a subclass registered for its entity:
///
/// ```swift
/// final class Product: ManagedObject {
///     var sku: String? {
///         get { self["sku"] }
///         set { self["sku"] = newValue }
///     }
///     var category: ManagedObject? {
///         get { object(forKey: "category") }
///         set { setObject(newValue, forKey: "category") }
///     }
///     override func awakeFromInsert() { self["createdAt"] = Date() }
/// }
/// container.register(Product.self, forEntity: "Product")
/// ```
///
/// A managed object is not `Sendable`: it may be used only inside its context's `perform`/`performAndWait`. Pass
/// its ``objectID`` between contexts instead. Using it elsewhere is caught by a debug check (see
/// ``ManagedObjectContext``).
open class ManagedObject {
    /// The object's identity: temporary until the object is first saved.
    public internal(set) var objectID: ObjectID
    /// The context the object lives in; `nil` once the context was reset or the object's deletion was saved.
    public internal(set) weak var managedObjectContext: ManagedObjectContext?
    let layout: EntityLayout
    /// The object's values and bookkeeping; touched only on its context's queue.
    var state: ObjectState

    /// Creates an object; only a context does this (``ManagedObjectContext/insertObject(entityName:)``, fetches),
    /// through the class registered for the entity. Subclasses inherit this initializer and need no other.
    public required init(entity: EntityDescription, objectID: ObjectID, context: ManagedObjectContext) {
        self.objectID = objectID
        self.managedObjectContext = context
        self.layout = context.layout(of: entity.name)
        self.state = ObjectState(layout: layout)
    }

    deinit {
        managedObjectContext?.objectWillDeallocate(objectID)
    }

    /// The object's entity.
    public var entity: EntityDescription { layout.entity }

    // MARK: State

    /// Whether the object's values are not loaded yet; reading any property loads them.
    public var isFault: Bool { state.isFault }
    /// Whether the object was inserted and not saved yet.
    public var isInserted: Bool { state.lifecycle == .inserted }
    /// Whether the object was deleted and the deletion not saved yet; also true for a fault whose row was found gone
    /// when it fired (Core Data's `shouldDeleteInaccessibleFaults`), whose values then read as nil.
    public var isDeleted: Bool { state.lifecycle == .deleted }
    /// Whether a saved object has changes not saved yet.
    public var isUpdated: Bool { state.lifecycle == .updated }
    /// Whether the object has unsaved changes: inserted, updated or deleted.
    public var hasChanges: Bool { state.lifecycle != .clean }

    /// The persistent values that differ from the last saved (or fetched) ones, by key; for an inserted object,
    /// every attribute that has a value. Relationships appear as object IDs (to-many: the IDs' array).
    public func changedValues() -> [String: AttributeValue?] {
        willAccessValues()
        var changes: [String: AttributeValue?] = [:]
        for slot in layout.writableAttributeSlots where state.attributeChanged(slot) {
            changes.updateValue(state.attributes[slot], forKey: layout.attributes[slot].name)
        }
        return changes
    }

    /// The names of the persistent properties that differ from the last saved (or fetched) values.
    public var changedKeys: Set<String> {
        willAccessValues()
        var keys: Set<String> = []
        for slot in layout.writableAttributeSlots where state.attributeChanged(slot) {
            keys.insert(layout.attributes[slot].name)
        }
        for slot in layout.toOne.indices where state.toOneChanged(slot) { keys.insert(layout.toOne[slot].name) }
        for slot in state.changedToMany { keys.insert(layout.toMany[slot].name) }
        return keys
    }

    /// The last saved (or fetched) values of `keys` (all attributes when `nil`); empty for an object never saved.
    public func committedValues(forKeys keys: [String]? = nil) -> [String: AttributeValue?] {
        willAccessValues()
        guard let committed = state.committed else { return [:] }
        var values: [String: AttributeValue?] = [:]
        for name in keys ?? layout.storedAttributeSlots.map({ layout.attributes[$0].name }) {
            guard case .attribute(let slot) = layout.slot(of: name) else { continue }
            values.updateValue(committed.attributes[slot], forKey: name)
        }
        return values
    }

    // MARK: Attributes

    /// The value of the attribute `key` (Core Data's `value(forKey:)`); loads the object if it is a fault.
    public func value(forKey key: String) -> AttributeValue? {
        value(attributeSlot: attributeSlot(key))
    }

    /// Sets the attribute `key`, marking the object updated. Setting a derived attribute traps: the store
    /// maintains those.
    public func setValue(_ value: AttributeValue?, forKey key: String) {
        setValue(value, attributeSlot: attributeSlot(key))
    }

    /// The slot of each attribute of `keys` in this object's entity, or nil for a relationship: for setting the
    /// same attributes of many objects (``setValue(_:attributeSlot:)``) without looking each name up each time.
    /// Objects of one entity share their slots (``entityLayoutID`` tells); a sub-entity's may differ.
    package func attributeSlots(forKeys keys: [String]) -> [Int?] {
        keys.map { key in
            guard case .attribute(let slot) = layout.slot(of: key) else { return nil }
            return slot
        }
    }

    /// What objects with the same attribute slots share (see ``attributeSlots(forKeys:)``).
    package var entityLayoutID: ObjectIdentifier { ObjectIdentifier(layout) }

    /// The value of the attribute at `slot` (from ``attributeSlots(forKeys:)``), as ``value(forKey:)``.
    package func value(attributeSlot slot: Int) -> AttributeValue? {
        willAccessValues()
        return state.attributes[slot]
    }

    /// Sets the attribute at `slot` (from ``attributeSlots(forKeys:)``), as ``setValue(_:forKey:)``.
    package func setValue(_ value: AttributeValue?, attributeSlot slot: Int) {
        precondition(
            layout.attributes[slot].derivation == nil,
            "'\(layout.attributes[slot].name)' of \(layout.name) is derived; the store maintains it and it cannot be "
                + "set")
        setPrimitive(value, slot: slot)
    }

    /// The attribute `key` as a Swift value: `let price: Decimal? = product["price"]`,
    /// `product["name"] = "Tea"`. Reading gives nil when the value is nil or of another type.
    public subscript<Value: AttributeConvertible>(key: String) -> Value? {
        get { value(forKey: key).flatMap(Value.init(attributeValue:)) }
        set { setValue(newValue?.attributeValue, forKey: key) }
    }

    /// The stored value of `key` without custom accessors (Core Data's `primitiveValue(forKey:)`), for use inside
    /// lifecycle callbacks and accessors.
    public func primitiveValue(forKey key: String) -> AttributeValue? {
        value(forKey: key)
    }

    /// Sets the stored value of `key` directly (Core Data's `setPrimitiveValue(_:forKey:)`): the object is marked
    /// updated, but no observation events are posted. Derived attributes may be set this way only in memory.
    public func setPrimitiveValue(_ value: AttributeValue?, forKey key: String) {
        setPrimitive(value, slot: attributeSlot(key))
    }

    private func setPrimitive(_ value: AttributeValue?, slot: Int) {
        willAccessValues()
        precondition(state.lifecycle != .invalid, "\(objectID) is no longer in a context")
        guard state.attributes[slot] != value else { return }
        // A clean object becomes updated; an updated one is recorded for objects-did-change; an inserted one is
        // already pending and listed as inserted.
        guard state.lifecycle != .inserted && layout.attributes[slot].isStored else {
            state.attributes[slot] = value
            return
        }
        let context = self.context
        if state.eventBaseline?.event != context.eventNumber {
            state.eventBaseline = EventBaseline(event: context.eventNumber, attributes: state.attributes)
        }
        state.attributes[slot] = value
        context.objectDidChange(self)
    }

    func attributeSlot(_ key: String) -> Int {
        guard case .attribute(let slot) = layout.slot(of: key) else {
            preconditionFailure("'\(key)' of \(layout.name) is a relationship; use object(forKey:) or objects(forKey:)")
        }
        return slot
    }

    // MARK: Lifecycle callbacks, called when Core Data calls them; subclasses override them.

    /// Called once, when the object is first inserted into a context: set defaults that need code here.
    open func awakeFromInsert() {}
    /// Called after the object's values were loaded from the store.
    open func awakeFromFetch() {}
    /// Called during a save for each inserted, updated and deleted object, before validation. Changing a value
    /// here dirties the object again: change only what differs.
    open func willSave() {}
    /// Called after the save that wrote the object committed.
    open func didSave() {}
    /// Called when the object is deleted, before its delete rules run (its relationships are still readable).
    open func prepareForDeletion() {}
    /// Called before the object becomes a fault again (``ManagedObjectContext/refresh(_:mergeChanges:)``, a merge),
    /// while its values are still readable: release what was derived from them.
    open func willTurnIntoFault() {}
    /// Called once the object is a fault again; its values are not loaded.
    open func didTurnIntoFault() {}
    /// Checks the object as the save of an insert will (Core Data's `validateForInsert()`): called by you, it runs
    /// the model's rules (and the custom validators, whose replacements the object keeps) and throws what fails.
    /// Override it for custom checks and call `super` first to keep the model's rules when you call it yourself;
    /// throw a ``ValidationError``. During a save, which runs the model's rules itself and reports them together
    /// with an override's errors, the base implementation does nothing.
    ///
    /// - Throws: ``ValidationError``, with code ``ValidationError/Code/multipleErrors`` for several failures.
    open func validateForInsert() throws {
        try context.validateExplicitly(self, deleting: false)
    }
    /// Checks the object as the save of an update will (Core Data's `validateForUpdate()`); see
    /// ``validateForInsert()``.
    ///
    /// - Throws: ``ValidationError``.
    open func validateForUpdate() throws {
        try context.validateExplicitly(self, deleting: false)
    }
    /// Checks that the object may be deleted (Core Data's `validateForDelete()`): a relationship whose delete rule
    /// is Deny must be empty (1600); see ``validateForInsert()`` for overriding.
    ///
    /// - Throws: ``ValidationError``.
    open func validateForDelete() throws {
        try context.validateExplicitly(self, deleting: true)
    }

    /// Checks `value` for the attribute `key` without setting it (Core Data's `validateValue(_:forKey:)`): the
    /// model's rules for the attribute, then the custom validators, which may replace `value`. Each error carries
    /// the value it found (``ValidationError/value``) and the rule it broke (``ValidationError/rule``).
    ///
    /// ```swift
    /// var name: AttributeValue? = .string(input)
    /// try category.validateValue(&name, forKey: "name")
    /// category.setValue(name, forKey: "name")
    /// ```
    ///
    /// `key` must be a non-derived attribute; anything else traps.
    /// - Throws: ``ValidationError``, with code ``ValidationError/Code/multipleErrors`` for several failures.
    public func validateValue(_ value: inout AttributeValue?, forKey key: String) throws {
        let errors = context.validator.validateValue(
            &value, forKey: key, entity: layout.name, objectDescription: objectID.uriString)
        if let error = ValidationError.combined(errors) { throw error }
    }

    // MARK: Internals

    /// The context, which must exist: using an object after its context is gone is a programming error.
    var context: ManagedObjectContext {
        guard let context = managedObjectContext else {
            preconditionFailure("\(objectID) is no longer in a context (it was reset, or its deletion was saved)")
        }
        return context
    }

    /// Checks the caller is on the context's queue and loads the values of a fault.
    func willAccessValues() {
        // The context is a weak reference, costly to load on every value read or set: it is loaded only when there
        // is something to do with it.
        guard state.isFault || ManagedObjectContext.checksConcurrency, let context = managedObjectContext else {
            return
        }
        context.assertOnQueue()
        if state.isFault { context.fulfillFault(self) }
    }
}

extension ManagedObject: CustomStringConvertible {
    /// `<Product: x-ferry://…/Product/p12>` (with `(fault)` for a fault).
    public var description: String {
        "<\(layout.name): \(objectID.uriString)\(state.isFault ? " (fault)" : "")>"
    }
}
