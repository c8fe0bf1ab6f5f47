import Foundation
import Testing

@testable import FerryIO
import FerryTestSupport

/// ``JSONWriter`` with keys and values whose sizes straddle the encoder's scratch buffer (where a field stops
/// being formatted in one step) and the chunks a large string is escaped in: every output is JSON and reads back
/// as what was written.
@Suite("JSON writer buffer boundaries")
struct JSONWriterBoundaryTests {
    /// The scratch buffer's size; fields around it change path.
    static let scratch = 16 * 1024

    /// The value kinds written after each key, with their bytes.
    static let values: [(kind: FieldKind, text: String)] = [
        (.null, ""), (.string, ""), (.string, "v\"\u{1}é"), (.number, "-1.5e3"), (.boolean, "true"),
        (.json, #"[1,{"k":null}]"#),
    ]

    @Test("A key of every length around the scratch buffer, before each kind of value, gives JSON with that key")
    func longKeys() throws {
        try TestSupport.withTemporaryFolder { folder in
            for layout in [JSONWriter.Layout.ndjson, .array] {
                // Key sizes for which the key alone, or the key with a null, a number or a short string, crosses
                // the buffer's end, as the first column and as a later one.
                for keyLength in (Self.scratch - 24)...(Self.scratch + 2) {
                    let key = String(repeating: "k", count: keyLength)
                    let path = folder.appendingPathComponent("keys-\(keyLength).json").path
                    let writer = try JSONWriter(path: path, layout: layout)
                    let columns = [key] + Self.values.indices.map { "\(key)\($0)" }
                    try writer.begin(columns: columns)
                    for value in [(FieldKind.null, "")] + Self.values { try write(value.text, value.kind, to: writer) }
                    try writer.endRecord()
                    try writer.endRecord()  // every column missing: all nulls
                    try writer.finish()
                    let objects = try parsedObjects(path, layout: layout)
                    #expect(objects.count == 2, "key of \(keyLength) bytes")
                    guard objects.count == 2 else { continue }
                    #expect(objects[0][key] is NSNull)
                    #expect(objects[0]["\(key)0"] is NSNull)
                    #expect(objects[0]["\(key)1"] as? String == "")
                    #expect(objects[0]["\(key)2"] as? String == "v\"\u{1}é")
                    #expect((objects[0]["\(key)3"] as? NSNumber)?.doubleValue == -1500)
                    #expect(objects[0]["\(key)4"] as? Bool == true)
                    #expect(objects[1].count == columns.count && objects[1].values.allSatisfy { $0 is NSNull })
                }
            }
        }
    }

    @Test("Strings and JSON texts of every length around the buffer and the escape chunks read back unchanged")
    func longValues() throws {
        try TestSupport.withTemporaryFolder { folder in
            // A string is escaped a sixth of the buffer at a time once it might not fit: lengths around one,
            // two and six such chunks, of plain text, of characters that all escape, and of multi-byte
            // characters that straddle a chunk's end.
            let chunk = Self.scratch / 6
            var lengths: [Int] = []
            for center in [chunk - 1, chunk, 2 * chunk, 6 * chunk, Self.scratch] {
                lengths += (center - 4)...(center + 4)
            }
            var texts: [String] = []
            for length in lengths {
                texts.append(String(repeating: "a", count: length))
                texts.append(String(repeating: "\"", count: length))
                texts.append(String(repeating: "\u{2}", count: length))
                texts.append(String(repeating: "a", count: length % 4) + String(repeating: "😀", count: length / 4))
                texts.append(String(repeating: "é", count: length / 2) + "\\")
            }
            let path = folder.appendingPathComponent("values.ndjson").path
            let writer = try JSONWriter(path: path, layout: .ndjson)
            try writer.begin(columns: ["s", "j"])
            for (index, text) in texts.enumerated() {
                try writer.writeField(text)
                try write(jsonText(length: lengths[index / 5]), .json, to: writer)
                try writer.endRecord()
            }
            try writer.finish()
            let objects = try parsedObjects(path, layout: .ndjson)
            #expect(objects.count == texts.count)
            for (index, object) in objects.enumerated() where index < texts.count {
                #expect(object["s"] as? String == texts[index], "record \(index + 1)")
            }
            // The reader agrees, and sees each JSON text exactly as written.
            let reader = try JSONReader(path: path, layout: .ndjson)
            var index = 0
            while let record = try reader.next() {
                let json = record[1].withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                #expect(json == jsonText(length: lengths[index / 5]))
                index += 1
            }
            #expect(index == texts.count)
        }
    }
}

/// A compact JSON array of zeros, `length` bytes long (at least 2).
private func jsonText(length: Int) -> String {
    let zeros = max(0, (length - 1) / 2)
    return "[" + Array(repeating: "0", count: zeros).joined(separator: ",") + "]"
}

/// Writes `text` as the next field of `writer`, of `kind`.
private func write(_ text: String, _ kind: FieldKind, to writer: JSONWriter) throws {
    var text = text
    try text.withUTF8 { try writer.writeField(UnsafeRawBufferPointer($0), kind: kind) }
}

/// The objects of the NDJSON or JSON array file at `path`, each parsed by Foundation (which fails on anything
/// that is not JSON).
private func parsedObjects(_ path: String, layout: JSONWriter.Layout) throws -> [[String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    switch layout {
    case .array:
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    case .ndjson:
        return try data.split(separator: UInt8(ascii: "\n")).map {
            try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] ?? [:]
        }
    }
}
