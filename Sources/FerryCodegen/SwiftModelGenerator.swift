public import FerryStore

/// Writes typed Swift code for a ``FerryStore/ManagedObjectModel``, as mogenerator does for Core Data: per entity a
/// machine class `_Product` (typed properties, relationship accessors, key constants, fetch request templates),
/// which the generator rewrites every time, and a human class `Product: _Product` for hand-written code, written
/// once; plus a type holding the model itself (`CatalogModel`), so a program needs no model file at run time.
///
/// ```swift
/// let generator = SwiftModelGenerator(model: model, modelTypeName: "CatalogModel", source: "Catalog.xcdatamodeld")
/// let machine = generator.machineFile(for: "Product")   // _Product.swift
/// ```
///
/// The output depends only on the model and the settings: the same model gives byte-identical files (entities,
/// templates and registrations in name order; attributes and relationships in model order).
public struct SwiftModelGenerator: Sendable {
    /// Who may see the generated declarations.
    public enum AccessLevel: String, Sendable, CaseIterable {
        /// Declarations visible in their module only (the default: an app target's own classes).
        case `internal`
        /// Public declarations and open classes, for a library target other modules use.
        case `public`
    }

    /// One file of generated code.
    public struct File: Sendable, Hashable {
        /// What the file holds, which decides when it is written.
        public enum Kind: Sendable, Hashable {
            /// A machine class: rewritten every time.
            case machine
            /// A human class: written only when missing.
            case human
            /// The model type: rewritten every time.
            case model
        }

        /// The file's name, such as `_Product.swift`.
        public var name: String
        /// Its kind.
        public var kind: Kind
        /// The Swift source, ending in a newline.
        public var contents: String
    }

    /// The model.
    public let model: ManagedObjectModel
    /// The name of the type holding the model, such as `CatalogModel`.
    public let modelTypeName: String
    /// The model file's name as headers mention it, such as `Catalog.xcdatamodeld` (no folder, so output does not
    /// depend on where the generator ran).
    public let source: String
    /// What headers name as the generator, such as `ferry generate swift`.
    public let generatorName: String
    /// Who may see the declarations.
    public let accessLevel: AccessLevel

    /// A generator for `model`.
    public init(
        model: ManagedObjectModel, modelTypeName: String, source: String,
        generatorName: String = "ferry generate swift", accessLevel: AccessLevel = .internal
    ) {
        self.model = model
        self.modelTypeName = modelTypeName
        self.source = source
        self.generatorName = generatorName
        self.accessLevel = accessLevel
    }

    /// The type name for a model file at `path`: `Pipelines/catalog.model.yml` → `CatalogModel`.
    public static func modelTypeName(forModelAt path: String) -> String {
        SwiftIdentifiers.modelTypeName(forModelAt: path)
    }

    /// The entities' names, sorted.
    public var entityNames: [String] { model.entities.map(\.name).sorted() }

    /// Every file: the model type, then each entity's machine and human files, by entity name.
    public func files() -> [File] {
        [modelFile()] + entityNames.flatMap { [machineFile(for: $0), humanFile(for: $0)] }
    }

    /// The machine file of `entity` (`_Product.swift`).
    public func machineFile(for entity: String) -> File {
        File(
            name: "_\(entity).swift", kind: .machine,
            contents: machineHeader(humanFile: "\(entity).swift") + imports(publicFoundation: usesFoundation([entity]))
                + "\n" + machineClass(entity))
    }

    /// The human file of `entity` (`Product.swift`).
    public func humanFile(for entity: String) -> File {
        let header = """
            // \(entity).swift: written once by Ferry (`\(generatorName)`) from \(source), never rewritten.
            // This class is yours: add properties, methods and lifecycle callbacks (awakeFromInsert, willSave…).
            // Its generated base class, _\(entity), is rewritten each time the generator runs.


            """
        return File(
            name: "\(entity).swift", kind: .human, contents: header + Self.plainImports + "\n" + humanClass(entity))
    }

    /// The file of the model type (`CatalogModel.swift`).
    public func modelFile() -> File {
        File(
            name: "\(modelTypeName).swift", kind: .model,
            contents: machineHeader(humanFile: nil) + imports(publicFoundation: false) + "\n" + modelType())
    }

    /// One file holding the model type, every machine class and the human classes of `defaultHumanClasses` (the
    /// entities whose human class the target does not have yet): what the build-tool plugin compiles.
    public func singleFile(defaultHumanClasses: Set<String>) -> String {
        let foundation = usesFoundation(entityNames)
        var parts = [machineHeader(humanFile: nil) + imports(publicFoundation: foundation), modelType()]
        for entity in entityNames {
            parts.append(machineClass(entity))
            if defaultHumanClasses.contains(entity) { parts.append(humanClass(entity)) }
        }
        return parts.joined(separator: "\n")
    }

    // MARK: Pieces

    func machineHeader(humanFile: String?) -> String {
        var header = """
            // Generated by Ferry (`\(generatorName)`) from \(source). Do not edit: this file is rewritten each time
            // the generator runs.

            """
        if let humanFile { header += "// Put your own code in \(humanFile), which the generator writes only once.\n" }
        return header + "\n"
    }

    /// The imports of a file with public declarations: in public mode FerryStore is imported publicly (the classes
    /// inherit from `ManagedObject`), and Foundation only when `publicFoundation` says a public declaration uses one
    /// of its types, as an unused public import is a warning. Plain imports otherwise, which are public in a module
    /// without the `InternalImportsByDefault` feature.
    func imports(publicFoundation: Bool) -> String {
        guard accessLevel == .public else { return Self.plainImports }
        return "public import FerryStore\n" + (publicFoundation ? "public import Foundation\n" : "import Foundation\n")
    }

    /// `import FerryStore` and `import Foundation`.
    static let plainImports = "import FerryStore\nimport Foundation\n"

    /// Foundation's types that generated declarations may use.
    static let foundationTypes: Set<String> = ["Date", "Data", "Decimal", "UUID", "URL"]

    /// Whether the machine classes of `entities` declare something whose type is Foundation's: an attribute's type,
    /// a transformable's value type naming one, or a template parameter.
    func usesFoundation(_ entities: [String]) -> Bool {
        for name in entities {
            guard let entity = model.entity(named: name) else { continue }
            for attribute in entity.attributes {
                if case .transformable = attribute.type {
                    let words = (attribute.valueTypeName ?? "").split { !($0.isLetter || $0.isNumber || $0 == "_") }
                    if words.contains(where: { Self.foundationTypes.contains(String($0)) }) { return true }
                } else if let type = swiftType(of: attribute.type), isFoundationType(type) {
                    return true
                }
            }
            for template in model.fetchRequestTemplates.values where template.entity == name {
                guard let predicate = try? FetchPredicate(format: template.predicate) else { continue }
                let types = templateVariables(predicate, entity: name).compactMap(\.type)
                if types.contains(where: isFoundationType) { return true }
            }
        }
        return false
    }

    private func isFoundationType(_ type: String) -> Bool {
        type.hasPrefix("Foundation.") || Self.foundationTypes.contains(type)
    }

    /// `public ` or nothing, before members.
    var access: String { accessLevel == .public ? "public " : "" }

    /// `open ` or nothing, before classes.
    var classAccess: String { accessLevel == .public ? "open " : "" }

    func humanClass(_ entity: String) -> String {
        """
        /// An object of the \(entity) entity. Its typed properties are in _\(entity); write your own code here.
        \(classAccess)class \(entity): _\(entity) {}

        """
    }

    /// The name of a type the generated code uses, qualified by its module when an entity has the same name
    /// (an entity named `Date` would hide Foundation's).
    func typeName(_ name: String) -> String {
        guard model.entity(named: name) != nil || name == modelTypeName else { return name }
        switch name {
        case "String", "Int16", "Int32", "Int64", "Double", "Float", "Bool", "Set": return "Swift." + name
        case "Decimal", "Date", "Data", "UUID", "URL": return "Foundation." + name
        default: return "FerryStore." + name
        }
    }
}
