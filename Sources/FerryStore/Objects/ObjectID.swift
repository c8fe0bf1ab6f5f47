public import Foundation
import Synchronization

/// The last temporary identifier handed out.
private let temporaryCounter = Atomic<UInt64>(0)

/// The identity of one stored object: its entity, its primary key (`_pk`) and the store that holds it, as Core
/// Data's permanent `NSManagedObjectID`.
///
/// An object ID is a plain value: it can cross executors and be kept after its context is gone. Its URI has Core
/// Data's shape (`x-coredata://<store UUID>/<Entity>/p<Z_PK>`) with Ferry's scheme, and parses back:
///
/// ```swift
/// let id = ObjectID(entityName: "Product", primaryKey: 12, storeIdentifier: metadata.storeIdentifier)
/// id.uriRepresentation.absoluteString  // "x-ferry://0B2C…/Product/p12"
/// ObjectID(uriRepresentation: id.uriRepresentation) == id  // true
/// ```
///
/// The entity is the object's own entity, which may be a sub-entity of the one fetched.
///
/// An object inserted into a context has a *temporary* ID until it is saved (or until
/// `ManagedObjectContext.obtainPermanentIDs(for:)`): ``isTemporaryID`` is true, ``primaryKey`` is 0 and the URI
/// has Core Data's temporary shape, `x-ferry:///<Entity>/t<number>`, which does not parse back.
public struct ObjectID: Sendable, Hashable, CustomStringConvertible {
    /// The URI scheme of object IDs: `x-ferry`.
    public static let uriScheme = "x-ferry"

    /// The name of the object's own entity (a sub-entity's name for objects of sub-entities).
    public var entityName: String {
        get { entity.text }
        set { entity = ObjectIDName(newValue) }
    }
    /// The object's primary key: the `_pk` column of its row.
    public var primaryKey: Int64
    /// The identifier of the store holding the object (``StoreMetadata/storeIdentifier``).
    public var storeIdentifier: String {
        get { store.text }
        set { store = ObjectIDName(newValue) }
    }
    /// For a temporary ID, what tells it apart from every other; `nil` for a permanent ID.
    /// Numbered from a process-wide counter: a UUID per inserted object cost a read of the random device.
    public private(set) var temporaryIdentifier: UInt64?
    /// ``entityName``, held as a number (see ``ObjectIDName``): an ID is copied without reference counting.
    package private(set) var entity: ObjectIDName
    /// ``storeIdentifier``, held as a number (see ``ObjectIDName``).
    package private(set) var store: ObjectIDName

    /// Whether this is the temporary ID of an object not yet saved (Core Data's `isTemporaryID`).
    public var isTemporaryID: Bool { temporaryIdentifier != nil }

    /// A new temporary ID for an object of `entityName` inserted into a context.
    public static func temporary(entityName: String) -> ObjectID {
        temporary(entity: ObjectIDName(entityName))
    }

    /// A new temporary ID for an object of `entity`, whose name is looked up already.
    package static func temporary(entity: ObjectIDName) -> ObjectID {
        var id = ObjectID(entity: entity, primaryKey: 0, store: .empty)
        id.temporaryIdentifier = temporaryCounter.add(1, ordering: .relaxed).newValue
        return id
    }

    /// Creates the ID of the object stored in row `primaryKey` of `entityName`'s table in the store
    /// `storeIdentifier`.
    public init(entityName: String, primaryKey: Int64, storeIdentifier: String) {
        self.init(entity: ObjectIDName(entityName), primaryKey: primaryKey, store: ObjectIDName(storeIdentifier))
    }

    /// Creates the ID of the object stored in row `primaryKey` of `entity`'s table in `store`, the names looked up
    /// already: for making many IDs of one entity and store without a table lookup each.
    package init(entity: ObjectIDName, primaryKey: Int64, store: ObjectIDName) {
        self.entity = entity
        self.primaryKey = primaryKey
        self.store = store
    }

    /// `x-ferry://<storeIdentifier>/<Entity>/p<primaryKey>`, as a string. Characters other than letters, digits,
    /// `-`, `.`, `_` and `~` in the store identifier or entity name are percent-encoded (model entity names and
    /// store UUIDs never have any).
    public var uriString: String {
        if let temporaryIdentifier {
            return "\(Self.uriScheme):///\(Self.encode(entityName))/t\(temporaryIdentifier)"
        }
        return "\(Self.uriScheme)://\(Self.encode(storeIdentifier))/\(Self.encode(entityName))/p\(primaryKey)"
    }

    /// `x-ferry://<storeIdentifier>/<Entity>/p<primaryKey>`: a URI that ``init(uriRepresentation:)`` parses back,
    /// for storing a reference to an object outside the store (Core Data's `uriRepresentation()`).
    public var uriRepresentation: URL {
        // Every component is percent-encoded down to unreserved characters, so the text is always a valid URL.
        guard let url = URL(string: uriString) else { preconditionFailure("not a URL: \(uriString)") }
        return url
    }

    /// Parses an object ID URI made by ``uriRepresentation``; `nil` when `uri` is not one (another scheme, a
    /// missing part, a temporary-ID shape such as `t…`, or a primary key that is not a positive integer).
    public init?(uriRepresentation uri: URL) {
        self.init(uriString: uri.absoluteString)
    }

    /// Parses the text of an object ID URI; `nil` when it is malformed (see ``init(uriRepresentation:)``).
    public init?(uriString: String) {
        let prefix = Self.uriScheme + "://"
        guard uriString.lowercased().hasPrefix(prefix) else { return nil }
        let parts = uriString.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, let store = Self.decode(parts[0]), let entity = Self.decode(parts[1]),
            !store.isEmpty, !entity.isEmpty, parts[2].first == "p"
        else { return nil }
        let digits = parts[2].dropFirst()
        // Only plain decimal digits: `Int64("+5")` would accept a sign that ``uriString`` never writes.
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let key = Int64(digits), key > 0 else {
            return nil
        }
        self.init(entityName: entity, primaryKey: key, storeIdentifier: store)
    }

    /// Hashes the primary key (or temporary identifier) only: the entity and store rarely tell two IDs of one
    /// table apart, and hashing their text made every context lookup slow.
    ///
    /// One word is hashed: a permanent ID's key, or a temporary ID's number with the top bit set (keys are never
    /// negative), so a lookup feeds the hasher once.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(temporaryIdentifier.map { $0 | 1 << 63 } ?? UInt64(bitPattern: primaryKey))
    }

    /// The URI, as Core Data prints an object ID's: `<x-ferry://…/Product/p12>`.
    public var description: String { "<\(uriString)>" }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ component: String) -> String {
        component.addingPercentEncoding(withAllowedCharacters: unreserved) ?? component
    }

    private static func decode(_ component: Substring) -> String? {
        component.removingPercentEncoding
    }
}

extension Character {
    /// Whether this is one of `0`…`9`.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
