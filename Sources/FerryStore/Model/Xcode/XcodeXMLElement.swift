import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of an Xcode model's `contents` file, with where its start tag was written, read whole into memory
/// (a model file is small) so that the reader can look at an entity's children in any order.
struct XcodeXMLElement: Sendable {
    /// The element's name, such as `entity` or `attribute`.
    var name: String
    /// The element's XML attributes by name.
    var attributes: [String: String]
    /// The element's children, in document order.
    var children: [XcodeXMLElement]
    /// The line of the start tag, from 1 (libxml2 gives the line where the tag ends).
    var line: Int
    /// The column of the start tag, from 1.
    var column: Int

    /// The value of the XML attribute `name`, if written.
    subscript(_ name: String) -> String? {
        attributes[name]
    }

    /// The children named `name`.
    func children(named name: String) -> [XcodeXMLElement] {
        children.filter { $0.name == name }
    }

    /// Parses `data` as XML and returns its root element.
    ///
    /// - Throws: ``ModelError`` with code ``ModelError/Code/invalidXML`` naming `file`, the line and column, when
    ///   the text is not well-formed XML.
    static func parse(_ data: Data, file: String) throws -> XcodeXMLElement {
        let parser = XMLParser(data: data)
        let builder = XcodeXMLTreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let succeeded = parser.parse()
        guard succeeded, let root = builder.root else {
            let underlying = parser.parserError.map { " (\(($0 as NSError).localizedDescription))" } ?? ""
            let line = builder.errorLine ?? parser.lineNumber
            let column = builder.errorColumn ?? parser.columnNumber
            throw ModelError(
                .invalidXML, "the model's contents file is not well-formed XML\(underlying)", file: file,
                line: line > 0 ? line : nil, column: column > 0 ? column : nil)
        }
        return root
    }
}

/// Builds the element tree from `XMLParser`'s callbacks. Lives only for one parse, on one thread.
private final class XcodeXMLTreeBuilder: NSObject, XMLParserDelegate {
    /// Open elements, outermost first.
    private var stack: [XcodeXMLElement] = []
    /// The document's element once it is closed.
    private(set) var root: XcodeXMLElement?
    /// Where the parser stopped on an error.
    private(set) var errorLine: Int?
    private(set) var errorColumn: Int?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        stack.append(
            XcodeXMLElement(
                name: elementName, attributes: attributeDict, children: [], line: parser.lineNumber,
                column: max(parser.columnNumber, 1)))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if errorLine == nil {
            errorLine = parser.lineNumber
            errorColumn = parser.columnNumber
        }
    }
}
