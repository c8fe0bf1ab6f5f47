/// What an import step does with input columns its entity lacks (new columns), as dlt's schema contracts: the
/// pipeline file's `schema:` key on an import step, `--schema` on `ferry import`.
///
/// A column is new when no mapping reads it and the entity has no attribute or relationship of its name. Names that
/// start with `_` are the store's own and never new (a rejects file's `_reason`, `_file`, `_record` and `_line`
/// are left unread, so it imports again under any contract). For
/// CSV and TSV inputs the header names every column before a record is read; a JSON input's fields are known only
/// from its records, so a contract judges the first ``ModelInference/sampleSize`` records of each input before
/// anything is written, and each later record by itself (see each case).
///
/// ```yaml
/// - import: { source: products.csv, entity: Product, key: sku, schema: evolve }
/// ```
public enum SchemaContract: String, Sendable, Hashable, CaseIterable {
    /// New columns become optional attributes of the entity, typed from a sample of their values as a model is
    /// inferred for a new store (``TypeInference``: `00123` stays text), by a migration of the store's model
    /// recorded in its model history, before any record is written; the records then store them. A JSON field that
    /// first appears after the sample is not added: its record is rejected with a reason naming the field, and
    /// importing the rejects again adds it.
    case evolve
    /// The entity's attributes are fixed: new columns fail the step before anything is written (exit 65), the
    /// message naming every new column and every attribute the input lacks. A JSON field that first appears after
    /// the sample rejects its record, with a reason naming the field.
    case freeze
    /// New columns are ignored: the report lists them among the unread columns and counts them. What a pipeline's
    /// import step does unless it says otherwise, as it did before contracts existed.
    case discardColumns = "discard-columns"
    /// Records that give a new column a value (neither null nor empty) are rejected, each with a reason naming the
    /// column, into the rejects like any other; records that leave it empty are stored.
    case discardRows = "discard-rows"

    /// The contract of an import step that names none: ``discardColumns``. (`ferry import` into an entity that
    /// exists already takes ``freeze`` instead.)
    public static let pipelineDefault = SchemaContract.discardColumns

    /// The spellings, as pipeline files and `--schema` take them.
    static var spellings: [(String, SchemaContract)] { allCases.map { ($0.rawValue, $0) } }
}
