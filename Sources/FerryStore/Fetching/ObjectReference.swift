import FerrySQLite
import Foundation

/// An object named in a predicate by its ID's URI (``ObjectID/uriRepresentation``, or the temporary shape of an
/// object not saved yet), as the store compares objects: a saved object by its primary key, an unsaved one by its
/// URI text, which equals only itself (no stored row refers to it).
///
/// This is how `category == %@` with an object or an object ID compiles: ``PredicateArgument/object(_:)`` makes
/// the URI constant.
struct ObjectReference {
    /// The object's own entity.
    var entityName: String
    /// What the store compares: the primary key, or the URI text of a temporary ID.
    var key: SQLiteValue

    /// The reference a URI names; nil when it is not an object ID's URI.
    init?(_ url: URL) {
        let text = url.absoluteString
        if let id = ObjectID(uriString: text) {
            self.entityName = id.entityName
            self.key = .integer(id.primaryKey)
            return
        }
        // A temporary ID: `x-ferry:///<Entity>/t<n>`.
        let prefix = ObjectID.uriScheme + ":///"
        guard text.hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].first == "t", let entity = parts[0].removingPercentEncoding, !entity.isEmpty
        else { return nil }
        self.entityName = entity
        self.key = .text(text)
    }
}

extension ManagedObjectModel {
    /// Whether objects of `entity` can be objects of `destination`: one is the other or inherits from it.
    func isRelated(_ entity: String, to destination: String) -> Bool {
        ancestry(of: entity).contains { $0.name == destination }
            || ancestry(of: destination).contains { $0.name == entity }
    }
}
