extension ManagedObjectModel {
    /// Loads and validates a model file, so that a cron job can change its model without a recompilation.
    ///
    /// ## The format
    ///
    /// A model file is YAML. Entities and properties keep the order they are written in; every key is checked,
    /// so a typo such as `optinal` is an error (with a suggestion), never silently ignored.
    ///
    /// ```yaml
    /// entities:
    ///   Category:
    ///     attributes:
    ///       name: { type: string, optional: false, minLength: 1, maxLength: 80, unique: true }
    ///       description: string                   # short form: just the type; optional, no rules
    ///       productCount: { type: integer64, default: 0, derivation: "@count products" }
    ///     relationships:
    ///       parent: { to: Category, inverse: children }
    ///       children: { to: Category, toMany: true, inverse: parent, deleteRule: deny }
    ///       products: { to: Product, toMany: true, inverse: category, deleteRule: deny }
    ///   Product:
    ///     attributes:
    ///       sku: { type: string, optional: false, regex: "^SKU-[0-9]{4,8}$" }
    ///       price: { type: decimal, min: 0 }
    ///       active: { type: boolean, optional: false, default: true }
    ///       photo: { type: binary, allowsExternalStorage: true }
    ///     relationships:
    ///       category: { to: Category, inverse: products }
    ///     uniquenessConstraints: [[sku]]
    ///     indexes: [[category, price]]
    ///   Animal: { abstract: true, attributes: { name: string } }
    ///   Dog: { parent: Animal, attributes: { breed: string } }
    /// fetchRequestTemplates:
    ///   expensiveProducts: { entity: Product, predicate: "price > $MIN_PRICE" }
    /// ```
    ///
    /// **Top level:** `entities` (required, at least one) and `fetchRequestTemplates`.
    ///
    /// **Entity** (`Name:` then a mapping, or nothing for an entity without properties):
    /// - `abstract` (`false`): no object of exactly this entity may be created.
    /// - `parent`: the entity it inherits from; a hierarchy shares its root's table.
    /// - `attributes`, `relationships`: mappings of name to settings, below.
    /// - `uniquenessConstraints`: a list of constraints, each a list of attribute names that must be unique
    ///   together: `[[sku]]`, `[[firstName, lastName], [email]]`. Attributes only (as in Core Data), stored
    ///   and not derived. `unique: true` on an attribute is the same as a one-name constraint.
    /// - `indexes`: a list of indexes, each a list of stored attribute or to-one relationship names.
    ///
    /// **Attribute:** either just a type name (`description: string`) or a mapping:
    /// - `type` (required): `integer16`, `integer32`, `integer64`, `double`, `float`, `decimal`, `string`,
    ///   `boolean`, `date`, `binary`, `uuid`, `uri`, or `transformable` with `transformer: NAME`.
    /// - `optional` (`true`), `transient` (`false`, never stored), `indexed` (`false`), `unique` (`false`).
    /// - `default`: read by the attribute's type, not by YAML's: integers and numbers as written, `decimal` as
    ///   exact text (`0.10` stays 0.10), `boolean` as `true`/`false`, `date` as ISO-8601
    ///   (`2026-01-05T09:00:00Z` or `2026-01-05`) or seconds since 1970, `uuid` as text, `uri` absolute, `binary`
    ///   as base64, `string` as the text written, `transformable` as base64 of the value its transformer encoded.
    /// - `min`, `max`: for numbers (and dates, as ISO-8601 or seconds since 1970); validation only.
    /// - `minLength`, `maxLength` (in UTF-16 units) and `regex` (whole-string match): for strings; validation only.
    /// - `allowsExternalStorage` (`false`): for `binary`; large values live in files beside the store.
    /// - `precision` (1…38) and `scale` (0…precision, default 0): for `decimal`; a Parquet export then writes it as
    ///   DECIMAL(precision, scale) and refuses a value with more digits. Without them it writes the exact text.
    /// - `derivation`: a value the store maintains with SQL triggers: a key path through to-one relationships
    ///   (`category.name`), `now()`, `canonical:(name)`, `lowercase:(name)`, `uppercase:(name)`,
    ///   `@count products` (or `products.@count`), `@sum items.quantity` (or `items.quantity.@sum`), and `@avg`,
    ///   `@min`, `@max` written as `@sum` is (`@avg items.price`, `items.price.@max`). `@sum` and `@avg` take
    ///   numbers; `@avg` gives a `double`, `float` or `decimal` (in `Decimal`, to 38 significant digits). `@min`
    ///   and `@max` take numbers, dates and strings and give the attribute's own type (decimals compare as
    ///   numbers). An empty to-many sums to 0 and gives nil for `@avg`, `@min` and `@max`.
    ///
    /// **Relationship:** either just the destination (`category: Category`: to-one, optional, nullify, no
    /// inverse) or a mapping:
    /// - `to` (required): the destination entity.
    /// - `inverse`: the destination's relationship that points back. Without one, loading warns.
    /// - `toMany` (`false`), `ordered` (`false`, to-many only), `optional` (`true`).
    /// - `deleteRule` (`nullify`): `nullify`, `cascade`, `deny` or `noAction`, as in Core Data.
    /// - `minCount`, `maxCount` (`0`: no limit): for to-many; validation only.
    ///
    /// **Fetch request template:** `name: { entity: Product, predicate: "price > $MIN_PRICE" }`.
    ///
    /// **Names** of entities and properties are plain SQL identifiers: ASCII letters, digits and `_`, starting
    /// with a letter. Property names may not start with `_` (Ferry's `_pk`, `_ent`, `_opt` columns); entity names
    /// may not start with `ferry_` (Ferry's tables) or `sqlite_` (SQLite's). Names that differ only in case
    /// clash, as SQLite ignores case in names.
    ///
    /// ## Xcode models
    ///
    /// `path` may also name an Xcode model: an `.xcdatamodeld` folder (the version its `.xccurrentversion` names is
    /// loaded; ``XcodeModelBundle`` lists every version) or one `.xcdatamodel` folder (its XML `contents` file). It
    /// gives the same ``ManagedObjectModel`` as the YAML that says the same, with the same ``versionHash``:
    /// - entities with `isAbstract` and `parentEntity`, in the order the file lists them;
    /// - attributes of every type Ferry stores (`Integer 16/32/64`, `Decimal`, `Double`, `Float`, `String`,
    ///   `Boolean`, `Date`, `Binary`, `UUID`, `URI`, and `Transformable` with its `valueTransformerName`), with
    ///   `optional` (absent means `NO`, as in Xcode's files), `transient`, `indexed`, `defaultValueString` (and
    ///   `defaultDateTimeInterval` for dates, in seconds since 2001), `minValueString`/`maxValueString` (bounds of
    ///   numbers, lengths of strings), `minDateTimeInterval`/`maxDateTimeInterval`, `regularExpressionString`,
    ///   `allowsExternalBinaryDataStorage`, and `derived` with its `derivationExpression` (`items.@count` becomes
    ///   `@count items`, `items.price.@sum` becomes `@sum items.price`);
    /// - relationships with `destinationEntity`, `inverseName`, `toMany`, `ordered`, `optional`, `deletionRule`
    ///   (`Nullify`, `Cascade`, `Deny`, `No Action`) and, on to-many ones, `minCount`/`maxCount`;
    /// - uniqueness constraints, fetch indexes (and the older compound indexes), and `<fetchRequest>` templates.
    ///
    /// What would change the data if it were left out (composite attributes, the `Undefined` type, transient
    /// relationships, indexes on expressions, a transformable without a transformer name) is an error. What does not
    /// shape the store (configurations, fetched properties, user info, renaming identifiers, version hash modifiers,
    /// unknown settings) is a warning with its line in ``ModelFile/warnings``. Settings for Xcode's own code
    /// generator and editor (`representedClassName`, `codeGenerationType`, `customClassName`,
    /// `usesScalarValueType`, `syncable`, the diagram's `<elements>`) are ignored. Xcode lists entities by name when
    /// it saves; a model converted to Xcode's format and saved again in Xcode may therefore list them in another
    /// order, which changes the version hash.
    ///
    /// ## Errors
    ///
    /// Every problem is reported, one line each, naming the file, line, entity and property:
    ///
    /// ```
    /// Pipelines/catalog.model.yml:14: entity Product, attribute price: unknown type 'money'; expected one of …
    /// ```
    ///
    /// A relationship without an inverse, and a few other doubtful choices, are warnings: the model loads. Use
    /// ``ModelFile`` to see them.
    ///
    /// - Parameter path: the model file, usually under `Pipelines/`, or an `.xcdatamodeld`/`.xcdatamodel` folder.
    /// - Returns: the validated model.
    /// - Throws: ``ModelError``: a single problem, or code ``ModelError/Code/multipleErrors`` with every problem
    ///   in ``ModelError/detailedErrors``; ``ModelError/Code/fileNotFound`` when there is no such file.
    public static func load(from path: String) throws -> ManagedObjectModel {
        try ModelFile(contentsOf: path).model
    }

    /// Parses and validates a model written in YAML, in the format described at ``load(from:)``.
    ///
    /// - Parameters:
    ///   - yaml: the text of a model file.
    ///   - path: the name diagnostics give the text.
    /// - Throws: ``ModelError``, as ``load(from:)``.
    public init(yaml: String, path: String = "<string>") throws {
        self = try ModelFile(yaml: yaml, path: path).model
    }
}
