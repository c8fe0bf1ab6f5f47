import ArgumentParser

/// `--where`: which objects a command reads, as a predicate in Core Data's format syntax (`ferry export`,
/// `ferry publish`).
struct PredicateOption: ParsableArguments {
    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "A predicate in Core Data's format syntax, such as \"price > 10\".",
            discussion: """
                Strings are quoted ("name BEGINSWITH[c] 'tea'"); a date compares with its seconds since \
                2001-01-01T00:00:00Z in a CAST, as Core Data writes it: "created_at >= CAST(788918400, 'NSDate')" \
                keeps the objects from 2026 on.
                """))
    var predicate: String?
}
