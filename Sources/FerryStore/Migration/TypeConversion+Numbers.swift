/// Conversions to integers, reals, decimals and booleans (see ``TypeConversion`` for the table).
extension TypeConversion {
    /// The range of each integer type.
    static func range(of type: AttributeType) -> ClosedRange<Int64>? {
        switch type {
        case .integer16: -32768...32767
        case .integer32: -2_147_483_648...2_147_483_647
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }

    /// The conversion from `old` to the number or boolean type `new`, or `nil`.
    static func toNumber(from old: AttributeType, to new: AttributeType) -> TypeConversion? {
        if let range = range(of: new) {
            let inRange = { (v: String) in "\(v) BETWEEN \(range.lowerBound) AND \(range.upperBound)" }
            let whole = "a whole number from \(range.lowerBound) to \(range.upperBound)"
            switch old {
            case .integer16, .integer32, .integer64, .boolean:
                // Another writer may have left a fraction in an integer column: it does not convert.
                return TypeConversion(
                    converts: { "\($0) = CAST(\($0) AS INTEGER) AND \(inRange($0))" }, value: { $0 },
                    expectation: whole)
            case .double, .float, .date:
                // A date converts to its seconds since 1970-01-01T00:00:00Z, as it is stored.
                return TypeConversion(
                    converts: { "\($0) = CAST(\($0) AS INTEGER) AND \(inRange($0))" },
                    value: { "CAST(\($0) AS INTEGER)" }, expectation: whole)
            case .string, .decimal:
                return .function(
                    {
                        "\(ConversionSQLFunctions.integerFromText)(\($0), \(range.lowerBound), \(range.upperBound))"
                    }, expecting: "a number with a zero fraction from \(range.lowerBound) to \(range.upperBound)")
            default:
                return nil
            }
        }
        switch (old, new) {
        case (.double, .float), (.integer64, .float):
            return .always { "CAST(\($0) AS REAL)" }
        case (.string, .double), (.decimal, .double):
            return .function(
                { "\(ConversionSQLFunctions.realFromText)(\($0), 0)" },
                expecting: "a number (such as -12.5, .5 or 1.5e-3)")
        case (.string, .float), (.decimal, .float):
            return .function(
                { "\(ConversionSQLFunctions.realFromText)(\($0), 1)" },
                expecting: "a number (such as -12.5, .5 or 1.5e-3) within the range of a float")
        case (.string, .decimal):
            return .function(
                { "\(ConversionSQLFunctions.decimalFromText)(\($0))" },
                expecting: "a decimal (a number such as -12.50 or 1.5e-3, at most 38 significant digits)")
        case (.double, .decimal), (.float, .decimal):
            // Only whole numbers: a binary fraction has no exact decimal text that SQL can give.
            return TypeConversion(
                converts: { "\($0) = CAST(\($0) AS INTEGER)" }, value: { "CAST(CAST(\($0) AS INTEGER) AS TEXT)" },
                expectation: "a whole number")
        case (.string, .boolean):
            return TypeConversion(
                converts: { "lower(trim(\($0))) IN ('true', 'false', 'yes', 'no', '1', '0')" },
                value: { "(lower(trim(\($0))) IN ('true', 'yes', '1'))" },
                expectation: "true, false, yes, no, 1 or 0")
        case (.integer16, .boolean), (.integer32, .boolean), (.integer64, .boolean):
            return TypeConversion(converts: { "\($0) IN (0, 1)" }, value: { $0 }, expectation: "0 or 1")
        default:
            return nil
        }
    }
}
