import FerryIO

/// The one rule for the member names of an object-of-records JSON file (`{"tea": {…}, "coffee": {…}}`): the reader
/// gives each record its member name in the field `_key`, a name the store reserves (names starting with `_` are
/// its own), so the column `_key` is stored as the attribute `key`.
///
/// An inferred model gets the attribute `key` and, for an object of records without `--key`, makes it the natural
/// key; `--key key` and `--key _key` both name it; and an import without field mappings into an entity with the
/// attribute `key` reads it from the column `_key` when the input has no column `key` of its own. An input with both
/// cannot infer a model (give one that maps them).
enum MemberNameColumn {
    /// The column the JSON reader puts each record's member name in.
    static let column = JSONReader.Layout.memberNameField
    /// The attribute that column is stored as.
    static let attribute = "key"

    /// The attribute the column (or key) named `name` is stored as: ``attribute`` for ``column``, else `name`.
    static func attribute(forColumn name: String) -> String {
        name == column ? attribute : name
    }

    /// Whether `reader`, having read a record, reads an object of records whose member names are in ``column``.
    static func readsMemberNames(_ reader: any RecordReader) -> Bool {
        guard let json = reader as? JSONReader, case .objectMembers(let field) = json.resolvedLayout else {
            return false
        }
        return field == column
    }

    /// Whether input `index` of `spec`, whose header (CSV) is `header`, stores ``column`` as ``attribute``: it has
    /// a column ``column`` and none named ``attribute`` of its own. A JSON input is judged by its first record (read
    /// once per step, see ``InputHeaders``); standard input and an input that cannot be read give `false` (the
    /// import reports why).
    static func isStored(in spec: ImportSpec, input index: Int, header: [String]?) -> Bool {
        if let header { return header.contains(column) && !header.contains(attribute) }
        guard let input = spec.headerKey(ofInput: index) else { return false }
        return spec.inputHeaders.storesMemberNames(of: input) {
            guard input.path != "-",
                let format = spec.format ?? RecordFormat(inferringFrom: input.path), format.defaultDialect == nil,
                let reader = try? format.openReader(path: input.path, jsonOptions: spec.jsonOptions),
                let first = try? reader.next()
            else { return false }
            return first.field(named: column) != nil && first.field(named: attribute) == nil
        }
    }
}
