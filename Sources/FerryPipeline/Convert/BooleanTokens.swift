import FerryIO

/// The texts a boolean attribute reads as true and false, lower-cased once so that matching ignores ASCII case
/// without allocating.
struct BooleanTokens: Sendable {
    let trueTokens: [[UInt8]]
    let falseTokens: [[UInt8]]

    init(_ options: ConversionOptions) {
        trueTokens = options.trueTokens.map { $0.utf8.map(\.asciiLowercased) }
        falseTokens = options.falseTokens.map { $0.utf8.map(\.asciiLowercased) }
    }

    /// The value `text` names, or `nil`. A JSON boolean is `true` or `false` whatever the tokens are.
    func value(of text: UnsafeRawBufferPointer, kind: FieldKind) -> Bool? {
        if kind == .boolean {
            if text.equals("true") { return true }
            if text.equals("false") { return false }
            return nil
        }
        for token in trueTokens where text.equalsIgnoringASCIICase(token) { return true }
        for token in falseTokens where text.equalsIgnoringASCIICase(token) { return false }
        return nil
    }
}
