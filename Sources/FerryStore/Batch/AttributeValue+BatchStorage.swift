extension AttributeValue {
    /// Whether a batch request may store this value in an attribute of `type`: a value of the type's own kind
    /// (as validation accepts it), or an integer for a double, float or decimal attribute, which the shared
    /// encoder (`Statement.bind(_:as:at:)`) stores exactly.
    func isStorable(as type: AttributeType) -> Bool {
        if ModelValidator.value(self, fits: type) { return true }
        guard case .integer = self else { return false }
        switch type {
        case .double, .float, .decimal: return true
        default: return false
        }
    }
}

extension AttributeType {
    /// `an integer32 attribute`, `a string attribute`, for messages.
    var attributeDescription: String {
        "\(name.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(name) attribute"
    }
}
