public import Foundation
import Synchronization

/// Turns the values of transformable attributes into bytes and back, over `Codable` (Core Data's
/// `ValueTransformer`, named apart from Foundation's class of that name). A model names the transformer of each transformable attribute (`transformer: JSON`); the names
/// `JSON` and `PropertyList` are built in, others are registered with ``AttributeTransformers/register(_:named:)``.
public protocol AttributeTransformer: Sendable {
    /// The bytes stored for `value`.
    func encode<Value: Encodable>(_ value: Value) throws -> Data
    /// The value `data` was made from.
    func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value
}

/// JSON with sorted keys, so equal values store equal bytes.
public struct JSONAttributeTransformer: AttributeTransformer {
    public init() {}

    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try JSONDecoder().decode(type, from: data)
    }
}

/// Binary property lists.
public struct PropertyListAttributeTransformer: AttributeTransformer {
    public init() {}

    public func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(value)
    }

    public func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try PropertyListDecoder().decode(type, from: data)
    }
}

/// The transformers known by name, process-wide.
///
/// ```swift
/// AttributeTransformers.register(MyCompressedJSON(), named: "CompressedJSON")
/// try product.setTransformable(dimensions, forKey: "dimensions")
/// let dimensions = try product.transformable(Dimensions.self, forKey: "dimensions")
/// ```
public enum AttributeTransformers {
    private static let registry = Mutex<[String: any AttributeTransformer]>([
        "JSON": JSONAttributeTransformer(), "PropertyList": PropertyListAttributeTransformer(),
    ])

    /// Makes `transformer` the one models mean by `name`, replacing any before.
    public static func register(_ transformer: any AttributeTransformer, named name: String) {
        registry.withLock { $0[name] = transformer }
    }

    /// The transformer registered as `name`, if any.
    public static func transformer(named name: String) -> (any AttributeTransformer)? {
        registry.withLock { $0[name] }
    }
}

extension ManagedObject {
    /// The transformable attribute `key`, decoded by its transformer; nil when it has no value.
    ///
    /// - Throws: ``StoreError`` `.unknownTransformer` when the model names a transformer nobody registered; what
    ///   the transformer throws for bytes it cannot decode.
    public func transformable<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        guard case .transformable(let data)? = value(forKey: key) else { return nil }
        return try transformer(forKey: key).decode(type, from: data)
    }

    /// Sets the transformable attribute `key` to `value`, encoded by its transformer (nil clears it).
    ///
    /// - Throws: as ``transformable(_:forKey:)``, or what the transformer throws for a value it cannot encode.
    public func setTransformable<Value: Encodable>(_ value: Value?, forKey key: String) throws {
        guard let value else { return setValue(nil, forKey: key) }
        setValue(.transformable(try transformer(forKey: key).encode(value)), forKey: key)
    }

    private func transformer(forKey key: String) throws -> any AttributeTransformer {
        guard case .transformable(let name) = layout.attributes[attributeSlot(key)].type else {
            preconditionFailure("'\(key)' of \(layout.name) is not a transformable attribute")
        }
        guard let transformer = AttributeTransformers.transformer(named: name) else {
            throw StoreError(
                .unknownTransformer,
                "'\(key)' of \(layout.name) uses the transformer '\(name)', which is not registered; call "
                    + "AttributeTransformers.register(_:named:) before using it")
        }
        return transformer
    }
}
