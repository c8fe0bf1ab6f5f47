import FerryIO
import FerryStore
import Foundation

/// One pass of one chunk over one context: the objects it inserted or changed, and the records refused.
struct ChunkApplication {
    let plan: ImportPlan
    let chunk: Chunk
    let context: ManagedObjectContext
    let store: PersistentStore
    let destinations: [Int: [String: Int64]]
    /// Each row's key text (see ``keyText(row:of:plan:)``); nil when every record is inserted as a new object
    /// (``ContextChunkWriter/insertsEveryRecord``).
    let rowKeys: [String]?
    /// The chunk's key cells decoded once (see ``decodedKeyValues(of:plan:)``), row after row; empty when every
    /// record is inserted as a new object. The fetch of stored objects and every pass read these, so a key is
    /// decoded once; the other cells are decoded once per pass, when their values are set or compared.
    let keyValues: [AttributeValue?]
    /// For each column, its position in the key (`nil` for the others).
    private let keyPositions: [Int?]
    /// The number of key columns.
    private let keyWidth: Int
    /// Rows an earlier pass refused, with why: skipped, and rejected with that reason.
    let refused: [Int: String]
    var counts = StepCounts()
    var rejects: [RejectedRecord] = []
    /// The last row that inserted or changed each object.
    var rowOfObject: [ObjectIdentifier: Int] = [:]
    var objects: [ManagedObject] = []
    /// Destinations created in this context, by relationship column and key.
    var created: [Int: [String: ManagedObject]] = [:]
    /// The chunk's objects by key text: the stored ones fetched, then those its records insert.
    var byKey: [String: ManagedObject] = [:]
    /// Rows found refused during this pass whose changes cannot be undone alone (their object holds another
    /// record's changes too), with why. When any are found the pass is not saved: the chunk is applied again
    /// without them.
    private(set) var faults: [Int: String] = [:]
    /// Keys with a fault in this pass: their later rows wait for the next pass.
    private var faultedKeys: Set<String> = []
    /// The attribute slot of each column (nil for a relationship) in objects of `slotsLayout`, the entity layout of
    /// the last object set: looked up once rather than by name for every value.
    private var slots: [Int?] = []
    private var slotsLayout: ObjectIdentifier?

    init(
        plan: ImportPlan, chunk: Chunk, context: ManagedObjectContext, store: PersistentStore,
        destinations: [Int: [String: Int64]], rowKeys: [String]?, keyValues: [AttributeValue?],
        refused: [Int: String] = [:]
    ) {
        self.plan = plan
        self.chunk = chunk
        self.context = context
        self.store = store
        self.destinations = destinations
        self.rowKeys = rowKeys
        self.keyValues = keyValues
        var keyPositions = [Int?](repeating: nil, count: plan.columns.count)
        for (position, column) in plan.keyColumnIndexes.enumerated() { keyPositions[column] = position }
        self.keyPositions = keyPositions
        keyWidth = plan.keyColumnIndexes.count
        self.refused = refused
        counts.read = chunk.read
        rejects = chunk.rejects
    }

    /// A new pass over the same chunk that skips `refused` (the context reset first).
    func again(refusing refused: [Int: String]) -> ChunkApplication {
        ChunkApplication(
            plan: plan, chunk: chunk, context: context, store: store, destinations: destinations, rowKeys: rowKeys,
            keyValues: keyValues, refused: refused)
    }

    mutating func run() throws {
        let rows = chunk.rows
        if rowKeys != nil {
            byKey = try existingObjects(keyColumns: plan.keyColumnIndexes)
            byKey.reserveCapacity(byKey.count + rows.count)
        }
        context.reserveCapacity(forObjects: rows.count)
        rowOfObject.reserveCapacity(rows.count)
        objects.reserveCapacity(rows.count)
        let policy = plan.spec.mergePolicy
        for row in 0..<rows.count {
            if !refused.isEmpty, let reason = refused[row] {
                rejects.append(reject(row, reason: reason))
                continue
            }
            let key = rowKeys?[row]
            if let key, !faultedKeys.isEmpty, faultedKeys.contains(key) { continue }
            let object: ManagedObject
            var isNew = false
            if let key, let existing = byKey[key] {
                // The object of an earlier record of this chunk must be valid before this record meets it, as a
                // smaller chunk would have saved it: otherwise that record is refused, and the chunk applied again
                // without it, where this record comes as if it never had (new, whatever the policy).
                if let earlier = rowOfObject[ObjectIdentifier(existing)],
                    let reason = Self.failure(of: existing, in: context)
                {
                    fault(earlier, key: key, reason: reason)
                    continue
                }
                // A key an earlier record of the same chunk inserted is treated as stored, as batch mode and a
                // smaller chunk would: the result must not depend on where the chunks split.
                switch policy {
                case .mergeByPropertyStoreTrump, .rollback:
                    if differs(row, from: existing) { counts.kept += 1 } else { counts.unchanged += 1 }
                    continue
                case .error:
                    throw PipelineError(
                        .conflict,
                        "\(chunk.inputPath), record \(chunk.position(of: row).record): an object with key \(key) is already "
                            + "stored (merge policy: error; store-trump keeps it, object-trump updates it)")
                default: break
                }
                object = existing
            } else {
                object = context.insertObject(entityName: plan.entity.name)
                if let key { byKey[key] = object }
                isNew = true
            }
            guard let reason = set(row, on: object, isNew: isNew) else { continue }
            if isNew {
                context.delete(object)
                if let key { byKey[key] = nil }
            } else if let key, rowOfObject[ObjectIdentifier(object)] != nil {
                // Some of this record's values are set on an object holding an earlier record's changes: only a
                // pass without this record undoes them alone.
                fault(row, key: key, reason: reason)
                continue
            } else {
                context.refresh(object, mergeChanges: false)
            }
            rejects.append(reject(row, reason: reason))
        }
    }

    /// Saves with the checkpoint.
    ///
    /// - Throws: ``ValidationError`` when objects fail validation (nothing is saved; see ``culprits(of:)``); what
    ///   the save or the companion throws.
    mutating func save(companion: (_ outcome: ChunkOutcome) -> TransactionCompanion) throws -> ChunkOutcome {
        counts.rejected = rejects.count
        // Refused rows join the rejects out of record order; the ledger and the rejects file list them in order.
        rejects.sort { $0.position.record < $1.position.record }
        let outcome = ChunkOutcome(counts: counts, rejects: rejects)
        try context.save(committingWith: companion(outcome))
        return outcome
    }

    /// The rows to refuse for the objects `error` names, with why: each object's last record, since the object
    /// was valid before it (every earlier record's changes were checked when the next one came).
    ///
    /// - Throws: `error` when it names no object of the chunk (a custom validator on another object cannot be
    ///   pinned on a record).
    func culprits(of error: ValidationError) throws -> [Int: String] {
        var failures: [String: [ValidationError]] = [:]
        for failure in error.allErrors { failures[failure.objectDescription ?? "", default: []].append(failure) }
        var culprits: [Int: String] = [:]
        for object in objects {
            guard let row = rowOfObject[ObjectIdentifier(object)], let found = failures[object.objectID.uriString]
            else {
                continue
            }
            culprits[row] = Self.reason(found)
        }
        guard !culprits.isEmpty else { throw error }
        return culprits
    }

    /// Refuses `row` in the next pass, leaving the rest of its key's rows to that pass.
    private mutating func fault(_ row: Int, key: String, reason: String) {
        faults[row] = reason
        faultedKeys.insert(key)
    }

    /// Why `object` would fail validation now, or nil when it would pass.
    private static func failure(of object: ManagedObject, in context: ManagedObjectContext) -> String? {
        do {
            try context.validate(object)
            return nil
        } catch let error as ValidationError {
            return reason(error.allErrors)
        } catch {
            return "validation: \(error)"
        }
    }

    /// A reject's reason: each failure with the attribute or relationship it concerns.
    private static func reason(_ failures: [ValidationError]) -> String {
        "validation: "
            + failures.map { failure in (failure.key.map { "'\($0)': " } ?? "") + failure.message }
            .joined(separator: "; ")
    }

    /// Looks up the attribute slots of the columns in objects of `object`'s entity layout, unless known.
    private mutating func updateSlots(for object: ManagedObject) {
        guard object.entityLayoutID != slotsLayout else { return }
        slots = object.attributeSlots(forKeys: plan.columns.map(\.name))
        slotsLayout = object.entityLayoutID
    }

    /// Whether setting the row's values on `object` would change it (a store-trump step keeps `object` as it is:
    /// the record is then kept rather than unchanged).
    private mutating func differs(_ row: Int, from object: ManagedObject) -> Bool {
        updateSlots(for: object)
        for (index, column) in plan.columns.enumerated() {
            let cell = chunk.rows.cell(row: row, column: index)
            if case .absent = cell { continue }
            if case .relationshipKey(_, let relationship) = column.source {
                let current = object.object(forKey: column.name)
                guard case .text = cell else {
                    if current != nil { return true }
                    continue
                }
                let key = chunk.rows.withBytes(of: cell) { String(decoding: $0, as: UTF8.self) }
                if let found = existingDestination(index, key: key, relationship: relationship) {
                    if current !== found { return true }
                } else if relationship.onMissing != .null || current != nil {
                    return true
                }
                continue
            }
            guard let slot = slots[index] else { continue }
            if object.value(attributeSlot: slot) != value(row, column: index, as: column.type) {
                return true
            }
        }
        return false
    }

    /// Sets the row's values on `object`; returns why the record is refused, if it is.
    private mutating func set(_ row: Int, on object: ManagedObject, isNew: Bool) -> String? {
        var changed = false
        var leftEmpty = false
        updateSlots(for: object)
        for (index, column) in plan.columns.enumerated() {
            // A key missing from a JSON record: a new object keeps its default, a stored one its value.
            if case .absent = chunk.rows.cell(row: row, column: index) { continue }
            if case .relationshipKey(let source, let relationship) = column.source {
                let cell = chunk.rows.cell(row: row, column: index)
                guard case .text = cell else {
                    if object.object(forKey: column.name) != nil {
                        object.setObject(nil, forKey: column.name)
                        changed = true
                    }
                    continue
                }
                let key = chunk.rows.withBytes(of: cell) { String(decoding: $0, as: UTF8.self) }
                guard let destination = destination(index, key: key, relationship: relationship) else {
                    guard relationship.onMissing == .null else {
                        return relationship.missingReason(key: key, column: source)
                    }
                    leftEmpty = true
                    if object.object(forKey: column.name) != nil {
                        object.setObject(nil, forKey: column.name)
                        changed = true
                    }
                    continue
                }
                if object.object(forKey: column.name) !== destination {
                    object.setObject(destination, forKey: column.name)
                    changed = true
                }
                continue
            }
            guard let slot = slots[index] else { preconditionFailure("'\(column.name)' is not an attribute") }
            let value = value(row, column: index, as: column.type)
            if isNew || object.value(attributeSlot: slot) != value {
                object.setValue(value, attributeSlot: slot)
                changed = true
            }
        }
        if leftEmpty { counts.leftEmpty += 1 }
        if isNew {
            counts.inserted += 1
        } else if changed {
            counts.updated += 1
        } else {
            counts.unchanged += 1
            return nil
        }
        if rowOfObject.updateValue(row, forKey: ObjectIdentifier(object)) == nil { objects.append(object) }
        return nil
    }

    /// The destination of `key` for the relationship column `column`, created when the mapping creates missing
    /// ones (and counted).
    private mutating func destination(_ column: Int, key: String, relationship: ImportPlan.ResolvedRelationship)
        -> ManagedObject?
    {
        if let found = existingDestination(column, key: key, relationship: relationship) { return found }
        guard relationship.createsMissing else { return nil }
        let made = context.insertObject(entityName: relationship.destinationEntity)
        made.setValue(.string(key), forKey: relationship.keyAttribute)
        created[column, default: [:]][key] = made
        counts.created[relationship.destinationEntity, default: 0] += 1
        return made
    }

    /// The destination of `key` for the relationship column `column` when one is stored or made in this context.
    private func existingDestination(_ column: Int, key: String, relationship: ImportPlan.ResolvedRelationship)
        -> ManagedObject?
    {
        if let primaryKey = destinations[column]?[key] {
            return context.object(
                with: ObjectID(
                    entityName: relationship.destinationEntity, primaryKey: primaryKey,
                    storeIdentifier: store.identifier))
        }
        if let made = created[column]?[key] { return made }
        // A relationship to the entity itself by its key (a category's parent): an earlier record of the chunk.
        if relationship.destinationEntity == plan.entity.name, plan.keys == [relationship.keyAttribute],
            let earlier = byKey[key]
        {
            return earlier
        }
        return nil
    }

    /// The chunk's stored objects, by key text: one fetch, in batches.
    private func existingObjects(keyColumns: [Int]) throws -> [String: ManagedObject] {
        guard let first = keyColumns.first, chunk.rows.count > 0 else { return [:] }
        let column = plan.columns[first]
        var values: Set<AttributeValue> = []
        for row in 0..<chunk.rows.count {
            if let value = value(row, column: first, as: column.type) { values.insert(value) }
        }
        var request = FetchRequest(entityName: plan.entity.name)
        request.predicate = try FetchPredicate(
            format: "%K IN %@", .value(.string(column.name)), .array(values.map { PredicateArgument($0) }))
        request.fetchBatchSize = 1000
        request.includesPendingChanges = false
        request.returnsObjectsAsFaults = false
        var byKey: [String: ManagedObject] = [:]
        for object in try context.fetch(request) {
            byKey[Self.keyText(of: object, keyColumns: keyColumns.map { plan.columns[$0] })] = object
        }
        return byKey
    }

    /// The key cells of `chunk` decoded (``PackedRows/value(row:column:as:)``), row after row: made once per chunk,
    /// whatever the passes over it.
    static func decodedKeyValues(of chunk: Chunk, plan: ImportPlan) -> [AttributeValue?] {
        let keyColumns = plan.keyColumnIndexes
        var values: [AttributeValue?] = []
        values.reserveCapacity(chunk.rows.count * keyColumns.count)
        for row in 0..<chunk.rows.count {
            for column in keyColumns {
                values.append(chunk.rows.value(row: row, column: column, as: plan.columns[column].type))
            }
        }
        return values
    }

    /// The value of `row`'s cell in `column`: a key's decoded once, another's decoded now.
    private func value(_ row: Int, column: Int, as type: AttributeType) -> AttributeValue? {
        if !keyValues.isEmpty, let position = keyPositions[column] {
            return keyValues[row * keyWidth + position]
        }
        return chunk.rows.value(row: row, column: column, as: type)
    }

    /// The key of `row` of `chunk` as text: ``StoredValueCodec``'s key text of its cells, read from the packed
    /// buffers, with ``nullKeyPart`` for a null part.
    static func keyText(row: Int, of chunk: Chunk, plan: ImportPlan) -> String {
        var text = ""
        for (offset, column) in plan.keyColumnIndexes.enumerated() {
            if offset > 0 { text.append(StoredValueCodec.keyPartSeparator) }
            if !chunk.rows.appendKeyText(ofCell: chunk.rows.cell(row: row, column: column), to: &text) {
                text += nullKeyPart
            }
        }
        return text
    }

    /// A fetched object's key as text, as ``keyText(row:of:plan:)`` reads the same values packed.
    static func keyText(of object: ManagedObject, keyColumns: [ImportPlan.Column]) -> String {
        var text = ""
        for (offset, column) in keyColumns.enumerated() {
            if offset > 0 { text.append(StoredValueCodec.keyPartSeparator) }
            let stored = StoredValueCodec.encode(object.value(forKey: column.name), as: column.type)
            if !StoredValueCodec.appendKeyText(of: stored, to: &text) { text += nullKeyPart }
        }
        return text
    }

    /// The text of a null key part: records whose key has a null part meet each other within a chunk (never a
    /// stored row, which is fetched by a non-null key).
    static let nullKeyPart = "\u{0}"

    private func reject(_ row: Int, reason: String) -> RejectedRecord {
        RejectedRecord(
            file: chunk.inputPath, position: chunk.position(of: row), reason: reason,
            fieldsJSON: chunk.fieldsJSON(of: row))
    }
}
