import FerrySQLite

/// Derived attributes, as Core Data's, kept right by SQLite triggers, so that every writer — context saves, batch
/// requests, plain SQL on a connection with the store's functions — leaves them correct.
///
/// Each trigger is `AFTER INSERT`, `AFTER DELETE` or `AFTER UPDATE OF <the columns the value depends on>` on a
/// table the value depends on, and sets the derived column of the rows the change affects:
///
/// - `now()`: the row's own insert, and updates of any of its columns that are not derived (every save bumps
///   `_opt`, so every save counts; a derived value changing does not), to `julianday('now')` as Unix seconds,
///   rounded to the millisecond.
/// - a key path (`category.name`) and `canonical:`/`lowercase:`/`uppercase:` of one: the row's insert and updates
///   of its first key; inserts, deletes and updates of the next key (or the attribute) on each table the path
///   crosses. A dangling key copies NULL.
/// - `@count` and `@sum` over a to-many: computed in full when the owner is inserted; then kept by increments on
///   each insert, delete and re-pointing of a member (and change of the summed attribute) when the arithmetic is
///   exact — counts, integer sums into an integer, integer or decimal sums into a decimal (through
///   `ferry_decimal`, so decimal text stays exact). Other sums (floating point, or any sum through a join table,
///   where a member may be gone before its join row) are recomputed in full for the affected owners: an increment
///   would let rounding drift, or could not see the deleted member's value. An empty to-many sums to 0.
/// - `@avg`, `@min` and `@max` over a to-many: never kept by increments (an extreme cannot be taken back when its
///   member goes, and a running mean drifts). The owner's insert, each insert, delete and re-pointing of a member
///   (both owners, when a member moves) and each change of the aggregated attribute recompute the value in full
///   for the affected owners, as SQL's `avg`, `min` and `max` do: members whose attribute is NULL are left out, and
///   an empty to-many (or one whose values are all NULL) gives NULL, where `@sum` gives 0. `@avg` of integers or
///   floating point into a double or float is SQL's `avg`; of decimals, or into a decimal, it is
///   `ferry_decimal_avg`: the exact sum divided by the count in `Decimal` (38 significant digits, so `1/3` is
///   rounded there). `@min` and `@max` of decimals go through `ferry_decimal_min` and `ferry_decimal_max`, which
///   compare the values as numbers (as text, `10` sorts before `9`); of other types they are SQL's `min` and
///   `max`: numbers and dates numerically, strings in SQLite's BINARY order (Unicode code points, as predicates
///   compare strings).
///
/// Triggers are created with `IF NOT EXISTS`, with names built from the entity, the attribute, the event and the
/// table (`ferry_derived_Category_productCount_insert_Product`), and in model order, so the same model always
/// gives the same SQL. They call `ferry_fold` (canonical: folds case and diacritics, as `[cd]` predicates do),
/// `ferry_lowercase`, `ferry_uppercase`, `ferry_decimal`, `ferry_decimal_sum`, `ferry_decimal_avg`,
/// `ferry_decimal_min` and `ferry_decimal_max`; see
/// `PersistentStore.registerSQLFunctions(on:)`.
extension StoreSchema {
    /// The `CREATE TRIGGER IF NOT EXISTS` statements that maintain the model's derived attributes, in model order.
    var derivationTriggerStatements: [String] {
        var builder = DerivationTriggerBuilder(schema: self)
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isStored {
                guard let expression = attribute.derivation,
                    let form = ModelValidator.derivationForm(expression),
                    let mapping = mapping(for: entity.name)
                else { continue }
                builder.add(form, for: attribute, in: mapping)
            }
        }
        return builder.statements
    }

    /// One `UPDATE` per derived attribute that sets the value of every row of its entity from scratch, in set-based
    /// SQL (what a migration runs when a derivation is added or changed), keyed by `"Entity.attribute"`, in model
    /// order. A `now()` stamp is given only to rows without one: a time of change cannot be recovered.
    var derivationRecomputeStatements: [(attribute: String, sql: String)] {
        let builder = DerivationTriggerBuilder(schema: self)
        var statements: [(attribute: String, sql: String)] = []
        for entity in model.entities {
            for attribute in entity.attributes where attribute.isStored {
                guard let expression = attribute.derivation,
                    let form = ModelValidator.derivationForm(expression),
                    let mapping = mapping(for: entity.name),
                    let sql = builder.recompute(form, for: attribute, in: mapping)
                else { continue }
                statements.append(("\(entity.name).\(attribute.name)", sql))
            }
        }
        return statements
    }
}
