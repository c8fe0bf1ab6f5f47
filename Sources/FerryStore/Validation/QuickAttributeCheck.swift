/// What one attribute's rules ask of a value that needs no more than a look at its kind: whether nil is allowed,
/// which case of ``AttributeValue`` the type takes, and whether a value of that kind can still break a rule.
///
/// A save validates every attribute of every object; most values pass on these three facts alone, without the
/// attribute's full rules (``AttributeRules``), which are read only for the values that need them.
struct QuickAttributeCheck: Sendable {
    /// The case of ``AttributeValue`` an attribute's type takes.
    enum Kind: UInt8, Sendable {
        case integer, double, decimal, string, boolean, date, binary, uuid, uri, transformable
    }

    let isOptional: Bool
    let kind: Kind
    /// Whether a value of the right kind still needs the full rules (bounds, lengths, a pattern, a narrow integer, a
    /// decimal's precision).
    let checksValues: Bool

    init(_ rules: AttributeRules) {
        isOptional = rules.attribute.isOptional
        checksValues = rules.checksValues
        kind =
            switch rules.attribute.type {
            case .integer16, .integer32, .integer64: .integer
            case .double, .float: .double
            case .decimal: .decimal
            case .string: .string
            case .boolean: .boolean
            case .date: .date
            case .binary: .binary
            case .uuid: .uuid
            case .uri: .uri
            case .transformable: .transformable
            }
    }

    /// Whether `value` surely passes the attribute's rules; false when only the full rules can tell.
    func passes(_ value: AttributeValue?) -> Bool {
        guard let value else { return isOptional }
        guard !checksValues else { return false }
        return Self.kind(of: value) == kind
    }

    private static func kind(of value: AttributeValue) -> Kind {
        switch value {
        case .integer: .integer
        case .double: .double
        case .decimal: .decimal
        case .string: .string
        case .boolean: .boolean
        case .date: .date
        case .binary: .binary
        case .uuid: .uuid
        case .uri: .uri
        case .transformable: .transformable
        }
    }
}
