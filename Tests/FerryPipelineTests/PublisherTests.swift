import FerryPostgres
import FerryStore
import FerryTestSupport
import Foundation
import Testing

@testable import FerryPipeline

struct PublisherTests {
    @Test func theFirstUpsertCreatesTheTableFromTheModelAndSendsEveryRow() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...5)
        let result = try await fixture.publish()
        #expect(result.counts.read == 5)
        #expect(result.counts.inserted == 5)
        #expect(result.counts.updated == 0)
        #expect(!result.incremental)
        #expect(try fixture.count() == 5)
        #expect(try fixture.bigBySKU()["SKU-0003"] == "3")
        let columns = try fixture.database.rows(
            "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'items' "
                + "ORDER BY ordinal_position")
        #expect(columns.map { $0[0] ?? "" } == [
            "sku", "small", "big", "ratio", "price", "active", "seen_at", "token", "link", "data", "category",
        ])
        #expect(columns.map { $0[1] ?? "" } == [
            "text", "smallint", "bigint", "double precision", "numeric", "boolean", "timestamp with time zone", "uuid",
            "text", "bytea", "text",
        ])
        #expect(columns.first?[2] == "NO")
        #expect(columns.dropFirst().allSatisfy { $0[2] == "YES" })
        let unique = try fixture.database.rows(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'items'").map { $0[0] ?? "" }
        #expect(unique == ["CREATE UNIQUE INDEX items_sku_key ON public.items USING btree (sku)"])
    }

    @Test func everyAttributeTypeReadsBackFromPostgreSQLAsStored() async throws {
        let fixture = try await PublishFixture()
        let token = UUID(uuidString: "6F1C3E52-1F0B-4C43-9D39-0D7F2A9B6E01")!
        try await fixture.store.insertItems([
            [
                "sku": .string("A\tB\\C\nD"), "small": .integer(-12), "big": .integer(9_007_199_254_740_993),
                "ratio": .double(0.1), "price": .decimal(Decimal(string: "12345678901234567890.123456789")!),
                "active": .boolean(true), "seen_at": .date(Date(timeIntervalSince1970: 1_767_603_600.25)),
                "token": .uuid(token), "link": .uri(URL(string: "https://example.com/a?b=c")!),
                "data": .binary(Data([0x00, 0x01, 0xFE, 0x5C, 0x0A])),
            ],
            ["sku": .string("nulls")],
        ])
        try await fixture.publish()
        let row = try #require(
            try fixture.database.rows(
                """
                SELECT sku, small, big, ratio, price::text, active, extract(epoch FROM seen_at)::text, token::text,
                    link, encode(data, 'hex'), category FROM items WHERE sku <> 'nulls'
                """
            ).first)
        #expect(row[0] == "A\tB\\C\nD")
        #expect(row[1] == "-12")
        #expect(row[2] == "9007199254740993")
        #expect(row[3] == "0.1")
        #expect(row[4] == "12345678901234567890.123456789")
        #expect(row[5] == "t")
        #expect(row[6] == "1767603600.250000")
        #expect(row[7] == "6f1c3e52-1f0b-4c43-9d39-0d7f2a9b6e01")
        #expect(row[8] == "https://example.com/a?b=c")
        #expect(row[9] == "0001fe5c0a")
        #expect(row[10] == nil)
        let nulls = try #require(try fixture.database.rows("SELECT small, ratio, data FROM items WHERE sku = 'nulls'").first)
        #expect(nulls == [nil, nil, nil])
    }

    @Test func theLimitsOfEveryTypeReadBackFromPostgreSQLAsStored() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertItems([
            [
                "sku": .string("low"), "small": .integer(-32768), "big": .integer(.min),
                "ratio": .double(-.greatestFiniteMagnitude),
                "price": .decimal(try #require(Decimal(string: "-99999999999999999999999999999999999999"))),
                // PostgreSQL has no year 0: the first instant of 0000 is its 0001-01-01 BC.
                "seen_at": .date(Date(timeIntervalSince1970: -62_167_219_200)),
            ],
            [
                "sku": .string("high"), "small": .integer(32767), "big": .integer(.max),
                "ratio": .double(.leastNonzeroMagnitude),
                "price": .decimal(try #require(Decimal(string: "0.00000000000000000000000000000000000001"))),
                "seen_at": .date(Date(timeIntervalSince1970: 253_402_300_799.5)),
            ],
        ])
        let result = try await fixture.publish()
        #expect(result.counts.rejected == 0)
        let rows = try fixture.database.rows(
            """
            SELECT sku, small, big, ratio, price::text, extract(epoch FROM seen_at)::text,
                to_char(seen_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS BC') FROM items ORDER BY sku DESC
            """)
        #expect(
            rows == [
                [
                    "low", "-32768", "-9223372036854775808", "-1.7976931348623157e+308",
                    "-99999999999999999999999999999999999999", "-62167219200.000000", "0001-01-01 00:00:00 BC",
                ],
                [
                    "high", "32767", "9223372036854775807", "5e-324", "0.00000000000000000000000000000000000001",
                    "253402300799.500000", "9999-12-31 23:59:59 AD",
                ],
            ])
    }

    @Test func anIncrementalUpsertSendsOnlyChangesAndDeletesTheDeletedObjects() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...4)
        try await fixture.publish()
        _ = try await fixture.store.store.execute(
            BatchUpdateRequest(
                entityName: "Item", predicate: try FetchPredicate(format: "sku == 'SKU-0002'"),
                propertiesToUpdate: ["big": .constant(.integer(22))]))
        try await fixture.store.insertItems([["sku": .string("SKU-0005"), "big": .integer(5)]])
        _ = try await fixture.store.store.execute(
            BatchDeleteRequest(
                fetchRequest: FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "sku == 'SKU-0003'"))
            ))

        let second = try await fixture.publish()
        #expect(second.incremental)
        #expect(second.counts.read == 2)
        #expect(second.counts.inserted == 1)
        #expect(second.counts.updated == 1)
        #expect(second.counts.unchanged == 0)
        #expect(second.counts.deleted == 1)
        #expect(try fixture.bigBySKU() == ["SKU-0001": "1", "SKU-0002": "22", "SKU-0004": "4", "SKU-0005": "5"])

        let third = try await fixture.publish()
        #expect(third.counts.read == 0)
        #expect(third.counts.deleted == 0)
        let checkpoint = try fixture.database.rows(
            "SELECT published_token, in_progress FROM ferry_publish_checkpoints WHERE table_name = 'items'")
        #expect(checkpoint.first?[0] == third.historyToken.map(String.init))
        #expect(checkpoint.first?[1] == "f")
    }

    @Test func anUpsertRewritesOnlyRowsWhoseValuesDiffer() async throws {
        let fixture = try await PublishFixture(recordsHistory: false)
        try await fixture.store.insertNumberedItems(1...3)
        try await fixture.publish()
        try fixture.database.execute("UPDATE items SET big = 99 WHERE sku = 'SKU-0001'")
        let xmin = try fixture.database.rows("SELECT xmin::text FROM items WHERE sku = 'SKU-0002'").first?[0]
        // Without history every publish sends every row: the merge tells the changed from the unchanged.
        let second = try await fixture.publish()
        #expect(!second.incremental)
        #expect(second.counts.read == 3)
        #expect(second.counts.updated == 1)
        #expect(second.counts.unchanged == 2)
        #expect(try fixture.bigBySKU()["SKU-0001"] == "1")
        #expect(try fixture.database.rows("SELECT xmin::text FROM items WHERE sku = 'SKU-0002'").first?[0] == xmin)
    }

    @Test func replaceSwapsInANewTableWithTheIndexes() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...3)
        try fixture.database.execute("CREATE TABLE items (sku integer, stale text)")
        try fixture.database.execute("INSERT INTO items VALUES (7, 'old')")
        let result = try await fixture.publish(mode: .replace)
        #expect(result.counts.read == 3)
        #expect(result.counts.inserted == 3)
        #expect(try fixture.bigBySKU() == ["SKU-0001": "1", "SKU-0002": "2", "SKU-0003": "3"])
        #expect(try fixture.database.rows("SELECT to_regclass('items_ferry_new')") == [[nil]])
        #expect(try fixture.database.rows("SELECT indexname FROM pg_indexes WHERE tablename = 'items'") == [["items_sku_key"]])
        try await fixture.store.insertNumberedItems(4...4)
        let again = try await fixture.publish(mode: .replace)
        #expect(again.counts.read == 4)
        #expect(try fixture.count() == 4)
    }

    @Test func appendCopiesRowsAndThenOnlyTheNewOnes() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...3)
        let first = try await fixture.publish(mode: .append) { $0.table = "events" }
        #expect(first.counts.inserted == 3)
        try await fixture.store.insertNumberedItems(4...5)
        let second = try await fixture.publish(mode: .append) { $0.table = "events" }
        #expect(second.incremental)
        #expect(second.counts.read == 2)
        #expect(try fixture.count("events") == 5)
    }

    @Test func anExistingTableThatDoesNotFitIsRefusedNamingEachDifference() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...2)
        try fixture.database.execute(
            "CREATE TABLE items (sku text, small integer, big bigint NOT NULL, ratio double precision, price numeric, "
                + "active boolean, seen_at timestamptz, token uuid, link text, data bytea, owner text NOT NULL)")
        let error = await #expect(throws: PipelineError.self) { try await fixture.publish() }
        #expect(error?.code == .invalidSpec)
        let message = error?.message ?? ""
        #expect(message.contains("column small is integer, expected smallint"))
        #expect(message.contains("column sku allows NULL, and the model says it is required"))
        #expect(message.contains("column big is NOT NULL, and the model allows no value"))
        #expect(message.contains("column category is missing (expected text)"))
        #expect(message.contains("column owner is NOT NULL without a default"))
        #expect(message.contains("no unique index on (sku)"))
        #expect(try fixture.count() == 0)
    }

    @Test func aValuePostgreSQLRefusesIsRejectedWithItsReasonAndTheRestIsPublished() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...5)
        try await fixture.store.insertItems([["sku": .string("bad\u{0}text"), "big": .integer(6)]])
        let rejects = fixture.store.file("publish.rejects.csv")
        let result = try await fixture.publish { spec in
            spec.chunkSize = 4
            spec.maxRejects = 1
            spec.rejectsPath = rejects
        }
        #expect(result.counts.read == 6)
        #expect(result.counts.inserted == 5)
        #expect(result.counts.rejected == 1)
        #expect(result.rejects.map(\.row) == [6])
        #expect(result.rejects.first?.reason.contains("invalid byte sequence") == true)
        #expect(result.rejects.first?.reason.contains("22021") == true)
        #expect(try fixture.count() == 5)
        let file = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(file.hasPrefix("_row,_reason,record\n6,"))
    }

    @Test func moreRejectsThanAllowedStopThePublishWithTheChunkRolledBack() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...3)
        try await fixture.store.insertItems([["sku": .string("bad\u{0}text"), "big": .integer(6)]])
        let error = await #expect(throws: PipelineError.self) { try await fixture.publish { $0.chunkSize = 2 } }
        #expect(error?.code == .tooManyRejects)
        // The first chunk (two rows) committed; the second, with the refused row, did not.
        #expect(try fixture.count() == 2)
    }

    /// With the interruption removed, the next publish resumes: it reads all ten items and the table ends with each
    /// of them once.
    private func expectResumedToEveryRow(_ fixture: PublishFixture) async throws {
        try fixture.removeInterruption()
        let resumed = try await fixture.publish { $0.chunkSize = 3 }
        #expect(resumed.resumed)
        #expect(resumed.counts.read == 10)
        #expect(resumed.counts.inserted == 10)
        #expect(resumed.counts.unchanged == 0)
        #expect(try fixture.count() == 10)
    }

    @Test func aPublishResumesAfterItsLastCommittedChunk() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...10)
        // The server stops the publish at the row of SKU-0008 (not a data error: the run fails, as when it goes away).
        try fixture.makeItemsTable(
            interruptedAt: "SKU-0008", by: "RAISE EXCEPTION 'stopped' USING ERRCODE = '57014'")
        let error = await #expect(throws: PostgresError.self) { try await fixture.publish { $0.chunkSize = 3 } }
        #expect(error?.sqlState == "57014")
        #expect(try fixture.count() == 6)
        try await expectResumedToEveryRow(fixture)
    }

    @Test func aPublishWhoseConnectionTheServerDropsResumesExactlyOnTheNextRun() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...10)
        // At the row of SKU-0008 the server ends the publishing session itself: the connection goes away mid-chunk.
        try fixture.makeItemsTable(interruptedAt: "SKU-0008", by: "PERFORM pg_terminate_backend(pg_backend_pid())")
        await #expect(throws: PostgresError.self) { try await fixture.publish { $0.chunkSize = 3 } }
        #expect(try fixture.count() == 6)
        try await expectResumedToEveryRow(fixture)
    }

    @Test func aSecondPublishOfTheSameTableIsRefusedWhileTheFirstHoldsItsLock() async throws {
        let fixture = try await PublishFixture()
        try await fixture.store.insertNumberedItems(1...2)
        let holder = try fixture.database.connect()
        #expect(try holder.tryAdvisoryLock(PublishRun.lockName(of: "items")))
        let error = await #expect(throws: PipelineError.self) { try await fixture.publish() }
        #expect(error?.code == .storeLocked)
        try holder.unlock(PublishRun.lockName(of: "items"))
        #expect(try await fixture.publish().counts.inserted == 2)
    }

    @Test func aWrongPasswordFailsWithLibpqsMessageAndThePasswordMasked() async throws {
        let fixture = try await PublishFixture()
        let password = fixture.database.password
        let wrong = fixture.database.url.replacingOccurrences(of: password, with: "not-\(password)-wrong")
        let error = await #expect(throws: PostgresError.self) {
            try await fixture.publish { $0.url = wrong }
        }
        #expect(error?.kind == .connectionFailed)
        let text = String(describing: error)
        #expect(text.contains("password authentication failed"))
        #expect(text.contains("ferry:***@"))
        #expect(!text.contains(password))
    }

    @Test func anUpsertWithoutAPublishedKeyIsRefusedBeforeConnecting() async throws {
        let fixture = try await PublishFixture()
        let error = await #expect(throws: PipelineError.self) {
            try await fixture.publish { $0.fields = ["big", "ratio"] }
        }
        #expect(error?.code == .invalidSpec)
        #expect(error?.message.contains("no uniqueness constraint of Item") == true)
    }
}
