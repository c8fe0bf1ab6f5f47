/// Where each part of a loaded model was written, so that validation, which sees only the
/// ``ManagedObjectModel``, can point at lines of the model file.
///
/// A spot is an element and optionally one of its keys (`min`, `inverse`, `uniquenessConstraints[1]`). A lookup
/// falls back from the key to the element, then to its entity, so a problem always gets the nearest line known.
/// A model built in Swift has an empty map, and its problems have no line.
struct ModelFileSourceMap: Sendable {
    /// A place in the model file.
    struct Position: Sendable, Hashable {
        /// From 1.
        var line: Int
        /// In Unicode scalars, from 1.
        var column: Int
    }

    /// An element, or one key of it.
    struct Spot: Sendable, Hashable {
        var element: ModelElement
        var key: String?
    }

    private var positions: [Spot: Position] = [:]
    /// Elements the parser already reported as broken (an unknown type, a missing destination); validation skips
    /// their own checks so that one typo gives one error.
    private var unreliable: Set<ModelElement> = []

    /// The key naming the `index`th uniqueness constraint of an entity.
    static func constraintKey(_ index: Int) -> String { "uniquenessConstraints[\(index)]" }
    /// The key naming the `index`th index of an entity.
    static func indexKey(_ index: Int) -> String { "indexes[\(index)]" }

    /// Remembers where `key` of `element` (or the element itself) was written; the first position recorded wins.
    mutating func record(_ position: Position?, for element: ModelElement, key: String? = nil) {
        guard let position else { return }
        let spot = Spot(element: element, key: key)
        if positions[spot] == nil { positions[spot] = position }
    }

    /// The position of `key` of `element`, else of `element`, else of its entity.
    func position(of element: ModelElement, key: String? = nil) -> Position? {
        if let key, let position = positions[Spot(element: element, key: key)] { return position }
        if let position = positions[Spot(element: element, key: nil)] { return position }
        if let entity = element.enclosingEntity, entity != element { return positions[Spot(element: entity, key: nil)] }
        return nil
    }

    /// Marks `element` as already reported broken.
    mutating func markUnreliable(_ element: ModelElement) {
        unreliable.insert(element)
    }

    /// Whether `element`, or the entity it belongs to, was reported broken while parsing.
    func isUnreliable(_ element: ModelElement) -> Bool {
        if unreliable.contains(element) { return true }
        if let entity = element.enclosingEntity, entity != element { return unreliable.contains(entity) }
        return false
    }
}
