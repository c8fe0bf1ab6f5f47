import Foundation

extension FetchPredicate {
    /// `SUBQUERY(collection, $x, predicate).@count`, as Core Data's subquery expression followed by `@count`: the
    /// number of objects of a to-many relationship that match `predicate`.
    ///
    /// ```swift
    /// try FetchPredicate(format: "SUBQUERY(products, $p, $p.price > 3.5 AND ANY $p.tags.label == 'green').@count == 2")
    /// let same: FetchPredicate = .subquery("products", "p", try FetchPredicate(format: "price > 3.5")) == 2
    /// ```
    ///
    /// In the format string, `$x.price` is the `price` of each object of the collection and `$x` the object itself;
    /// the parsed ``predicate`` holds them as plain key paths (`price`) and `SELF`, relative to that object. So key
    /// paths written without `$x` are the object's too, and another subquery's variable cannot be reached from a
    /// nested one. Only `.@count` may follow the subquery: it is the form Core Data's SQL store runs.
    public struct Subquery: Sendable, Hashable {
        /// The to-many key path whose objects are counted: `products`, or `category.products`.
        public var collection: String
        /// The variable's name, without the `$`, as printed back.
        public var variable: String
        /// The condition on each object, with key paths relative to it.
        public var predicate: FetchPredicate

        /// `SUBQUERY(collection, $variable, predicate).@count`.
        public init(collection: String, variable: String, predicate: FetchPredicate) {
            self.collection = collection
            self.variable = variable
            self.predicate = predicate
        }
    }
}

extension FetchPredicate.Expression {
    /// `SUBQUERY(collection, $variable, predicate).@count`, with `predicate`'s key paths relative to each object of
    /// `collection`.
    public static func subquery(_ collection: String, _ variable: String, _ predicate: FetchPredicate) -> Self {
        .subquery(FetchPredicate.Subquery(collection: collection, variable: variable, predicate: predicate))
    }
}

extension FetchPredicate.Expression {
    /// An object as a constant, by its ID (see ``PredicateArgument/object(_:)-(ObjectID)``): `.keyPath("category") ==
    /// .object(teaID)`.
    public static func object(_ id: ObjectID) -> Self {
        .constant(objectValue(id))
    }

    /// The constant an object ID stands as in a predicate: its URI.
    static func objectValue(_ id: ObjectID) -> AttributeValue {
        .uri(URL(string: id.uriString) ?? id.uriRepresentation)
    }
}
