internal import CLibPQ

extension PostgresConnection {
    /// Runs `COPY … FROM STDIN` (`sql`) and sends `data`, rows already in COPY's text format, in pieces of at most
    /// 1 MiB; returns the rows the server copied.
    ///
    /// - Throws: ``PostgresError`` `.statementFailed` when the server refuses a row (its context names the line, as
    ///   `COPY products, line 3, column price`), `.connectionLost` when it went away.
    @discardableResult
    package func copy(_ sql: String, data: UnsafeRawBufferPointer) throws -> Int {
        let handle = rawHandle
        let started = PQexec(handle, sql)
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            defer { PQclear(started) }
            throw failure(started, doing: sql)
        }
        PQclear(started)
        var offset = 0
        var sendFailed = false
        while offset < data.count, let base = data.baseAddress {
            let count = min(1 << 20, data.count - offset)
            let sent = (base + offset).withMemoryRebound(to: CChar.self, capacity: count) {
                PQputCopyData(handle, $0, Int32(count))
            }
            if sent != 1 {
                sendFailed = true
                break
            }
            offset += count
        }
        // Ending the copy is also how a refused row's error arrives; a send failure ends it with an error of ours.
        _ = PQputCopyEnd(handle, sendFailed ? "sending COPY data failed" : nil)
        var failed: PostgresError?
        var copied = 0
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                copied += PostgresResult(copying: result).affectedRows
            } else if failed == nil {
                failed = failure(result, doing: sql)
            }
        }
        if let failed { throw failed }
        if sendFailed || PQstatus(handle) != CONNECTION_OK { throw failure(nil, doing: sql) }
        return copied
    }
}
