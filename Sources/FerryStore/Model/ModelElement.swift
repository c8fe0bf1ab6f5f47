/// The part of a model that a ``ModelError`` or ``ModelWarning`` is about.
///
/// Its description is the subject of a diagnostic line: `entity Product, attribute price`.
public enum ModelElement: Sendable, Hashable, CustomStringConvertible {
    /// The model as a whole (its top level, or the file).
    case model
    /// An entity.
    case entity(String)
    /// An attribute of an entity.
    case attribute(entity: String, name: String)
    /// A relationship of an entity.
    case relationship(entity: String, name: String)
    /// A fetch request template.
    case fetchRequestTemplate(String)
    /// A fetched property of an entity.
    case fetchedProperty(entity: String, name: String)

    /// The entity involved, if any.
    public var entity: String? {
        switch self {
        case .model, .fetchRequestTemplate: nil
        case .entity(let name): name
        case .attribute(let entity, _), .relationship(let entity, _), .fetchedProperty(let entity, _): entity
        }
    }

    /// The attribute or relationship involved, if any.
    public var property: String? {
        switch self {
        case .model, .entity, .fetchRequestTemplate: nil
        case .attribute(_, let name), .relationship(_, let name), .fetchedProperty(_, let name): name
        }
    }

    /// `entity Product, attribute price`; empty for the whole model.
    public var description: String {
        switch self {
        case .model: ""
        case .entity(let name): "entity \(Self.shown(name))"
        case .attribute(let entity, let name): "entity \(Self.shown(entity)), attribute \(Self.shown(name))"
        case .relationship(let entity, let name): "entity \(Self.shown(entity)), relationship \(Self.shown(name))"
        case .fetchRequestTemplate(let name): "fetch request template \(Self.shown(name))"
        case .fetchedProperty(let entity, let name):
            "entity \(Self.shown(entity)), fetched property \(Self.shown(name))"
        }
    }

    /// The entity alone, for an element inside one.
    var enclosingEntity: ModelElement? {
        entity.map { .entity($0) }
    }

    /// A name as it appears in a diagnostic; an empty name would leave a hole in the sentence.
    private static func shown(_ name: String) -> String {
        name.isEmpty ? "(unnamed)" : name
    }

    /// One diagnostic line: `path:line: subject: message`, leaving out what is unknown.
    static func diagnosticLine(file: String?, line: Int?, element: ModelElement, message: String) -> String {
        var text = ""
        if let file {
            text = file
            if let line { text += ":\(line)" }
            text += ": "
        } else if let line {
            text = "line \(line): "
        }
        let subject = element.description
        if !subject.isEmpty { text += subject + ": " }
        return text + message
    }
}
