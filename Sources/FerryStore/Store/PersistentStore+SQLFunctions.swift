package import FerrySQLite

extension PersistentStore {
    /// Registers every SQL function the store's SQL and triggers call, on a connection to a store file.
    ///
    /// The store registers them on its own connection when it opens. A connection of your own that *writes* to a
    /// store with derived attributes needs them too: the triggers that maintain those attributes call
    /// `ferry_fold` (`canonical:`), `ferry_lowercase`, `ferry_uppercase`, `ferry_decimal`, `ferry_decimal_sum`,
    /// `ferry_decimal_avg`, `ferry_decimal_min` and `ferry_decimal_max` (decimal aggregates), and SQLite refuses an
    /// INSERT, UPDATE or DELETE whose triggers call a function it does not know ("no such function"). Reading needs
    /// nothing. Core Data stores have the same limit with their `NSCoreData…` functions.
    ///
    /// ```swift
    /// let connection = try Connection(path: "catalog.sqlite")
    /// try PersistentStore.registerSQLFunctions(on: connection)
    /// try connection.execute("UPDATE Category SET name = 'Thé' WHERE _pk = 2")  // triggers keep derived values
    /// ```
    ///
    /// - Throws: FerrySQLite's `SQLiteError` when SQLite refuses a registration.
    package static func registerSQLFunctions(on connection: Connection) throws {
        try FetchPredicate.registerSQLFunctions(on: connection)
        try BatchSQLFunctions.register(on: connection)
        try DerivationSQLFunctions.register(on: connection)
        try StoredValueCodec.registerKeyTextFunction(on: connection)
        try ConversionSQLFunctions.register(on: connection)
    }
}
