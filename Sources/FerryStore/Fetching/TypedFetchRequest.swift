/// A ``FetchRequest`` whose results are objects of one class, as Core Data's `NSFetchRequest<Product>`: what the
/// `fetchRequest()` of a generated class returns.
///
/// Every setting of the request reads and writes through it:
///
/// ```swift
/// var request = Product.fetchRequest()
/// request.predicate = try FetchPredicate(format: "price < %@", 10)
/// request.sortDescriptors = [FetchSortDescriptor(key: Product.Attributes.price)]
/// for product in try context.fetch(request) { print(product.sku, product.price ?? 0) }
/// ```
///
/// The class must be the one registered for the entity (or an ancestor of it); fetching objects of another class
/// traps, as it is a programming error.
@dynamicMemberLookup
public struct TypedFetchRequest<Object: ManagedObject>: Sendable, Hashable {
    /// The request itself.
    public var request: FetchRequest

    /// A request for the objects of `entityName`, as
    /// ``FetchRequest/init(entityName:predicate:sortDescriptors:resultType:)``.
    public init(entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = []) {
        self.request = FetchRequest(entityName: entityName, predicate: predicate, sortDescriptors: sortDescriptors)
    }

    /// The setting `keyPath` of the request: `request.fetchLimit = 10`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<FetchRequest, Value>) -> Value {
        get { request[keyPath: keyPath] }
        set { request[keyPath: keyPath] = newValue }
    }
}

/// The objects of a ``TypedFetchRequest``, each as its class; a view of ``FetchedObjects``, loaded the same way.
public struct TypedFetchedObjects<Object: ManagedObject>: RandomAccessCollection {
    /// The untyped results.
    public let objects: FetchedObjects

    public var startIndex: Int { objects.startIndex }
    public var endIndex: Int { objects.endIndex }

    /// The object at `position`, loading its batch when needed.
    public subscript(position: Int) -> Object {
        let object = objects[position]
        return ManagedObject.cast(object, to: Object.self, in: "a fetch of \(object.entity.name)")
    }

    /// The IDs of every object, in fetch order, without loading any.
    public var objectIDs: [ObjectID] { objects.objectIDs }
}

extension ManagedObjectContext {
    /// The objects `request` matches, each as `Object`; see ``fetch(_:)->FetchedObjects``.
    ///
    /// - Throws: as ``fetch(_:)->FetchedObjects``.
    public func fetch<Object>(_ request: TypedFetchRequest<Object>) throws -> TypedFetchedObjects<Object> {
        TypedFetchedObjects(objects: try fetch(request.request))
    }

    /// How many objects `request` matches; see `count(for:)` of a `FetchRequest`.
    ///
    /// - Throws: as ``fetch(_:)->FetchedObjects``.
    public func count<Object>(for request: TypedFetchRequest<Object>) throws -> Int {
        try count(for: request.request)
    }
}
