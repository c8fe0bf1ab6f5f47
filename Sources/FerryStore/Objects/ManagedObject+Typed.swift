/// Typed relationship access for subclasses (the code `ferry generate swift` writes uses these), and identity.
extension ManagedObject {
    /// The object a to-one relationship points at, as the class registered for its entity: `Category` for
    /// `object(forKey: "category", as: Category.self)`.
    ///
    /// The destination must be an instance of `type`: when it is not, the class was not registered for its entity
    /// (``PersistentContainer/register(_:forEntity:)``), a programming error that traps.
    public func object<Object: ManagedObject>(forKey key: String, as type: Object.Type) -> Object? {
        object(forKey: key).map { Self.cast($0, to: type, in: "'\(key)' of \(entity.name)") }
    }

    /// The members of a to-many relationship (in order for an ordered one), as the class registered for their
    /// entity; traps as ``object(forKey:as:)`` when a member is not an instance of `type`.
    public func objects<Object: ManagedObject>(forKey key: String, as type: Object.Type) -> [Object] {
        objects(forKey: key).map { Self.cast($0, to: type, in: "'\(key)' of \(entity.name)") }
    }

    /// `object` as `Object`, or a trap naming `place` (where the object came from) and the registration missing.
    static func cast<Object: ManagedObject>(
        _ object: ManagedObject, to type: Object.Type, in place: @autoclosure () -> String
    ) -> Object {
        guard let typed = object as? Object else {
            preconditionFailure(
                "\(place()) holds a \(object.entity.name) of class \(Swift.type(of: object)), not "
                    + "\(Object.self): register \(Object.self) for \(object.entity.name) before loading the store")
        }
        return typed
    }
}

/// Objects are equal when they are the same object, as Core Data's `NSManagedObject` (an `NSObject`): a context
/// holds one object per ID, so identity is the object's identity in that context. This lets typed to-many
/// relationships be sets.
extension ManagedObject: Hashable {
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
