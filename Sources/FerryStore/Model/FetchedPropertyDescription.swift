/// A property whose value is the result of a fetch (Core Data's `NSFetchedPropertyDescription`): the objects of
/// ``destinationEntity`` that match ``predicate``, read lazily through
/// ``ManagedObject/fetchedObjects(forKey:)``.
///
/// The predicate may name the object the property is read on as `$FETCH_SOURCE`, and follow key paths from it:
///
/// ```swift
/// EntityDescription(
///     name: "Product",
///     attributes: [AttributeDescription(name: "price", type: .double)],
///     relationships: [RelationshipDescription(name: "category", destinationEntity: "Category")],
///     fetchedProperties: [
///         FetchedPropertyDescription(
///             name: "sameCategory", destinationEntity: "Product",
///             predicate: "category == $FETCH_SOURCE.category AND SELF != $FETCH_SOURCE")
///     ])
/// ```
///
/// A fetched property has no column: it changes nothing in the store's tables and is not part of the model's
/// version hash.
public struct FetchedPropertyDescription: Sendable, Hashable {
    /// The property's name, unique among the entity's properties.
    public var name: String
    /// The entity whose objects the fetch returns (with its sub-entities).
    public var destinationEntity: String
    /// The fetch's predicate as a format string; `$FETCH_SOURCE` is the object the property is read on.
    public var predicate: String

    /// Creates a fetched property.
    public init(name: String, destinationEntity: String, predicate: String) {
        self.name = name
        self.destinationEntity = destinationEntity
        self.predicate = predicate
    }
}
