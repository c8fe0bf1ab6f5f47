internal import CSQLite3

extension Connection {
    /// The Swift body of a scalar SQL function: the call's arguments in, one value out.
    ///
    /// A thrown error becomes an SQLite error, so the statement that called the function fails with the error's
    /// description as its message.
    public typealias ScalarFunction = ([SQLiteValue]) throws -> SQLiteValue

    /// Registers a scalar SQL function on this connection, replacing any function with the same name and
    /// argument count.
    ///
    /// The body runs on whatever thread steps the statement, which is the connection's own executor: it needs no
    /// locking of its own, but it must not use this connection.
    ///
    /// ```swift
    /// try connection.createFunction("twice", argumentCount: 1) { arguments in
    ///     .integer((arguments[0].integer ?? 0) * 2)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - name: the SQL name; SQLite matches it case-insensitively.
    ///   - argumentCount: how many arguments the function takes, or -1 for any number.
    ///   - isDeterministic: whether the same arguments always give the same result, which lets SQLite use the
    ///     function in indexes on expressions and factor constant calls out of loops.
    ///   - body: the function.
    /// - Throws: ``SQLiteError`` when SQLite refuses the registration (a bad name or argument count).
    public func createFunction(
        _ name: String, argumentCount: Int, isDeterministic: Bool = true, _ body: @escaping ScalarFunction
    ) throws {
        precondition((-1...127).contains(argumentCount), "SQLite functions take -1...127 arguments")
        var flags = SQLITE_UTF8
        if isDeterministic { flags |= SQLITE_DETERMINISTIC }
        // The box is retained here and released by SQLite through `xDestroy` when the function is replaced or the
        // connection closes, so it lives exactly as long as the registration.
        let box = Unmanaged.passRetained(ScalarFunctionBox(body)).toOpaque()
        let status = sqlite3_create_function_v2(
            handle, name, Int32(argumentCount), flags, box,
            { context, count, values in
                guard let context, let box = sqlite3_user_data(context) else { return }
                let function = Unmanaged<ScalarFunctionBox>.fromOpaque(box).takeUnretainedValue()
                function.call(context, arguments: ScalarFunctionBox.arguments(count: Int(count), values))
            },
            nil, nil,
            { box in
                guard let box else { return }
                Unmanaged<ScalarFunctionBox>.fromOpaque(box).release()
            })
        // On failure SQLite has already called `xDestroy`, which released the box.
        guard status == SQLITE_OK else { throw error(status, sql: nil) }
    }
}

/// Holds a registered function's Swift body; SQLite keeps it as the function's user data.
private final class ScalarFunctionBox {
    let body: Connection.ScalarFunction

    init(_ body: @escaping Connection.ScalarFunction) {
        self.body = body
    }

    /// Copies the call's arguments out of SQLite.
    static func arguments(count: Int, _ values: UnsafeMutablePointer<OpaquePointer?>?) -> [SQLiteValue] {
        guard let values else { return [] }
        return (0..<count).map { index in
            guard let value = values[index] else { return .null }
            switch sqlite3_value_type(value) {
            case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
            case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
            case SQLITE_TEXT:
                guard let text = sqlite3_value_text(value) else { return .text("") }
                let length = Int(sqlite3_value_bytes(value))
                return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
            case SQLITE_BLOB:
                let length = Int(sqlite3_value_bytes(value))
                guard let bytes = sqlite3_value_blob(value), length > 0 else { return .blob([]) }
                return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: length)))
            default: return .null
            }
        }
    }

    /// Runs the body and hands its result, or its error, to SQLite.
    func call(_ context: OpaquePointer, arguments: [SQLiteValue]) {
        let result: SQLiteValue
        do {
            result = try body(arguments)
        } catch {
            sqlite3_result_error(context, String(describing: error), -1)
            return
        }
        switch result {
        case .null: sqlite3_result_null(context)
        case .integer(let integer): sqlite3_result_int64(context, integer)
        case .real(let real): sqlite3_result_double(context, real)
        case .text(let text):
            // An explicit length keeps text with embedded NUL characters whole.
            sqlite3_result_text(context, text, Int32(text.utf8.count), ferry_sqlite_transient())
        case .blob(let bytes):
            bytes.withUnsafeBytes { buffer in
                // A NULL pointer would make the result NULL instead of an empty blob.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    sqlite3_result_zeroblob(context, 0)
                    return
                }
                sqlite3_result_blob(context, base, Int32(buffer.count), ferry_sqlite_transient())
            }
        }
    }
}
