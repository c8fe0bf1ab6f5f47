/// A ``ManagedObject`` subclass that knows its entity: what makes `Product.insert(into:)` and
/// `Product.fetchRequest()` typed. The classes `ferry generate swift` writes conform; a hand-written class can too.
///
/// ```swift
/// class Product: ManagedObject, EntityClass {
///     class var entityName: String { "Product" }
/// }
/// let product = Product.insert(into: context)            // a Product
/// let products = try context.fetch(Product.fetchRequest())   // Products
/// ```
///
/// Declare ``entityName`` as a `class var` and override it in subclasses of sub-entities, so each class answers its
/// own entity. The class must be registered for the entity (``PersistentContainer/register(_:forEntity:)``).
public protocol EntityClass: ManagedObject {
    /// The name of the entity whose objects are instances of this class.
    static var entityName: String { get }
}

extension EntityClass {
    /// Inserts a new object of ``entityName`` into `context` (see ``ManagedObjectContext/insertObject(entityName:)``).
    public static func insert(into context: ManagedObjectContext) -> Self {
        context.insert(Self.self, entityName: entityName)
    }

    /// A request for every object of ``entityName`` (and its sub-entities), typed as this class.
    public static func fetchRequest() -> TypedFetchRequest<Self> {
        TypedFetchRequest(entityName: entityName)
    }
}
