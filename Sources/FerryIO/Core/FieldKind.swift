/// What a field's bytes hold.
///
/// CSV fields are always ``string`` or ``null``. JSON fields keep the JSON type they were read with, so a
/// writer can reproduce it: a number keeps its exact text, and an array (or an object that was not flattened)
/// keeps its JSON text.
public enum FieldKind: UInt8, Sendable, Hashable {
    /// No value: a null token in CSV, `null` in JSON, or a key missing from a record.
    case null
    /// Text, already unquoted and unescaped.
    case string
    /// A JSON number, exactly as written in the input.
    case number
    /// A JSON boolean; its bytes are `true` or `false`.
    case boolean
    /// A JSON array or object kept as compact JSON text.
    case json
}
