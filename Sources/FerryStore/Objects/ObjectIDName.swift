import Synchronization

/// An entity name or store identifier as an ``ObjectID`` holds it: a number standing for the text in a
/// process-wide table, so that copying an object ID retains nothing and comparing two compares numbers.
///
/// A store identifier is a 36-character UUID, too long for a string's inline form: held as text, every copy of an
/// object ID retained and released it, from every thread that handled IDs of that store. Each distinct text is
/// added once and kept for the life of the process; a process sees few entity names and few stores.
///
/// Texts are told apart as `String`'s `==` does (canonical equivalence): two spellings that compare equal share
/// one name, which reads back as the spelling added first.
package struct ObjectIDName: Hashable, Sendable {
    /// The text's place in the table.
    let index: UInt32

    /// The empty text, the store identifier of a temporary ID: known without a lookup.
    package static let empty = ObjectIDName(index: 0)

    private init(index: UInt32) {
        self.index = index
    }

    /// The name standing for `text`, added to the table the first time it is seen.
    package init(_ text: String) {
        if text.isEmpty {
            index = 0
            return
        }
        index = objectIDNames.withLock { $0.index(of: text) }
    }

    /// The text this name stands for.
    package var text: String {
        if index == 0 { return "" }
        return objectIDNames.withLock { $0.texts[Int(index)] }
    }
}

/// Every text named so far, in the order they were first seen, and each one's place.
private struct ObjectIDNameTable {
    var texts: [String] = [""]
    var indexes: [String: UInt32] = ["": 0]

    mutating func index(of text: String) -> UInt32 {
        if let found = indexes[text] { return found }
        guard let index = UInt32(exactly: texts.count) else {
            preconditionFailure("more than \(UInt32.max) distinct entity names and store identifiers in one process")
        }
        texts.append(text)
        indexes[text] = index
        return index
    }
}

/// The process-wide table behind ``ObjectIDName``.
private let objectIDNames = Mutex(ObjectIDNameTable())

/// Makes the IDs of one store's objects from entity names read row after row: the store's name is looked up once,
/// and an entity's again only when it is not the one of the row before (rows of one entity come together).
package struct ObjectIDMaker {
    /// The store's name.
    package let store: ObjectIDName
    private var lastEntity: (text: String, name: ObjectIDName)?

    /// A maker of IDs of objects in the store `storeIdentifier`.
    package init(storeIdentifier: String) {
        store = ObjectIDName(storeIdentifier)
    }

    /// A maker of IDs of objects in `store`, whose name is looked up already.
    package init(store: ObjectIDName) {
        self.store = store
    }

    /// The ID of the object in row `primaryKey` of `entityName`'s table.
    package mutating func id(entityName: String, primaryKey: Int64) -> ObjectID {
        if let lastEntity, lastEntity.text == entityName {
            return ObjectID(entity: lastEntity.name, primaryKey: primaryKey, store: store)
        }
        let name = ObjectIDName(entityName)
        lastEntity = (entityName, name)
        return ObjectID(entity: name, primaryKey: primaryKey, store: store)
    }
}
