extension ModelError.Code {
    /// An Xcode model's `contents` file (or its `.xccurrentversion`) is not well-formed XML.
    public static let invalidXML = ModelError.Code(rawValue: "invalidXML")
    /// A part of an Xcode model that Ferry cannot keep without changing the data, such as a composite attribute.
    public static let unsupportedFeature = ModelError.Code(rawValue: "unsupportedFeature")
}

extension ModelWarning.Code {
    /// A part of an Xcode model that Ferry does not use and that does not shape the store: a configuration, user
    /// info, a version hash modifier. The model loads without it.
    public static let ignoredXcodeSetting = ModelWarning.Code(rawValue: "ignoredXcodeSetting")
}
