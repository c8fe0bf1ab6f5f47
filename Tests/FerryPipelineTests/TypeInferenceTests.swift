import FerryIO
import FerryStore
import Testing

@testable import FerryPipeline

/// Inferring a column's type from its values, conservatively.
struct TypeInferenceTests {
    private func infer(_ values: [String?], kind: FieldKind = .string) -> TypeInference {
        var inference = TypeInference()
        for value in values { inference.add(value, kind: kind) }
        return inference
    }

    @Test func integersWithoutLeadingZerosAreInteger64() {
        #expect(infer(["12", "-7", "0", "9223372036854775807", "-9223372036854775808"]).inferredType == .integer64)
    }

    @Test(arguments: [["12", "00123"], ["+5"], ["-0"], ["9223372036854775808"], ["1 "], [" 1"], ["1_000"]])
    func integerLookingValuesThatWouldChangeStayStrings(values: [String]) {
        #expect(infer(values).inferredType == .string)
    }

    @Test func plainDecimalNumbersAreDoubles() {
        #expect(infer(["12.5", "-0.25", "0.0", "3"]).inferredType == .double)
        #expect(infer(["0.1", "123456789012.345"]).inferredType == .double, "15 significant digits")
        #expect(infer(["1.50", "100.000"]).inferredType == .double)
    }

    @Test(arguments: [
        [".5"], ["5."], ["01.5"], ["1e3"], ["1.5", "1,5"], ["1234567890123.4567"], ["NaN"], ["1.2.3"], ["+1.5"],
    ])
    func numbersThatAreNotPlainStayStrings(values: [String]) {
        #expect(infer(values).inferredType == .string)
    }

    @Test func jsonNumbersMayUseExponentsForDoubles() {
        #expect(infer(["1e3", "2.5E-2", "4"], kind: .number).inferredType == .double)
        #expect(infer(["1", "2"], kind: .number).inferredType == .integer64)
        #expect(infer(["1.0"], kind: .number).inferredType == .double)
    }

    @Test func onlyTrueAndFalseMakeBooleans() {
        #expect(infer(["true", "FALSE", "True"]).inferredType == .boolean)
        #expect(infer(["true", "yes"]).inferredType == .string)
        #expect(infer(["1", "0"]).inferredType == .integer64, "1 and 0 are integers, not booleans")
        #expect(infer(["true", "false"], kind: .boolean).inferredType == .boolean)
    }

    @Test func onlyISO8601WithAFullDateMakesDates() {
        #expect(infer(["2026-01-05", "2026-01-05T09:00:00Z", "2026-01-05 09:00:00.5+01:00"]).inferredType == .date)
        #expect(infer(["2026-01-05", "05/01/2026"]).inferredType == .string)
        #expect(infer(["2026-02-30"]).inferredType == .string, "an invalid date is not a date")
        #expect(infer(["2026"]).inferredType == .integer64)
    }

    @Test func mixedValuesAreStrings() {
        #expect(infer(["12", "true"]).inferredType == .string)
        #expect(infer(["2026-01-05", "12"]).inferredType == .string)
        #expect(infer(["12", "abc"]).inferredType == .string)
        var inference = TypeInference()
        inference.add("[1,2]", kind: .json)
        #expect(inference.inferredType == .string)
        inference.add("true", kind: .boolean)
        #expect(inference.inferredType == .string)
    }

    @Test func emptyAndNullValuesAreSkippedAndReported() {
        let some = infer(["12", "", nil, "13"])
        #expect(some.inferredType == .integer64)
        #expect(some.hasEmptyValues)
        #expect(some.valueCount == 2)

        let none = infer(["", nil])
        #expect(none.inferredType == .string, "nothing to go on: a string")
        #expect(none.hasEmptyValues)

        #expect(!infer(["1"]).hasEmptyValues)
        #expect(TypeInference().inferredType == .string)
    }

    @Test func mergingTwoInferencesIsLikeFeedingBoth() {
        var first = infer(["1", ""])
        first.merge(infer(["2.5"]))
        #expect(first.inferredType == .double)
        #expect(first.hasEmptyValues)
        #expect(first.valueCount == 2)
    }

    @Test func everyInferredTypeConvertsTheValuesItWasInferredFrom() throws {
        let columns: [[String]] = [
            ["12", "-7", "0"], ["12.5", "3", "-0.25"], ["true", "False"], ["2026-01-05", "2026-01-05T09:00:00+01:00"],
            ["00123", "x"],
        ]
        for values in columns {
            let type = infer(values).inferredType
            let converter = try FieldConverter(type: type)
            for value in values {
                #expect(converter.failure(value) == nil, "\(value) as \(type)")
            }
        }
    }
}
