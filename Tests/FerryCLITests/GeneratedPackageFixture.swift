import FerryTestSupport
import Foundation

/// A package written for ``GeneratedPackageTests``: two programs that depend on this checkout of Ferry by path and
/// use generated classes against a real store. `CatalogApp` uses the files `ferry generate swift --access public`
/// wrote from `Pipelines/catalog.model.yml`; `XcodeApp` gets its classes from the build-tool plugin, from a copy of the Xcode
/// fixture `Catalog.xcdatamodeld`, and `ShopApp` from a `.ferrymodel.yml` whose names need escaping. Every target
/// turns warnings into errors, so the generated code must have none.
enum GeneratedPackageFixture {
    /// The folder the package lives in, kept between runs so its build folder (`.build` inside it) is reused; one per
    /// checkout, so that two checkouts testing at once do not share it.
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "ferry-generated-package" + TestSupport.packageRoot.path.split(separator: "/").map { "-" + $0 }.joined())

    /// The Xcode fixture copied into `XcodeApp`.
    static let xcodeModel = TestSupport.packageRoot.appendingPathComponent(
        "Tests/FerryStoreTests/Fixtures/Xcode/Catalog.xcdatamodeld")

    /// The YAML model `CatalogApp` is generated from.
    static let catalogModel = TestSupport.packageRoot.appendingPathComponent("Pipelines/catalog.model.yml")

    /// `Package.swift`, depending on the checkout at `root` (SwiftPM names a path dependency after its folder).
    static func manifest(root: URL) -> String {
        let ferry = root.lastPathComponent
        return """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "GeneratedApp",
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: "\(root.path)")],
                targets: [
                    .executableTarget(
                        name: "CatalogApp",
                        dependencies: [.product(name: "FerryStore", package: "\(ferry)")],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
                    ),
                    .executableTarget(
                        name: "ShopApp",
                        dependencies: [.product(name: "FerryStore", package: "\(ferry)")],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])],
                        plugins: [.plugin(name: "FerryModelPlugin", package: "\(ferry)")]
                    ),
                    .executableTarget(
                        name: "XcodeApp",
                        dependencies: [.product(name: "FerryStore", package: "\(ferry)")],
                        exclude: ["Catalog.xcdatamodeld"],
                        swiftSettings: [.unsafeFlags(["-warnings-as-errors"])],
                        plugins: [.plugin(name: "FerryModelPlugin", package: "\(ferry)")]
                    ),
                ],
                swiftLanguageModes: [.v6]
            )

            """
    }

    /// `CatalogApp`'s human Product class, written before generating: the generator must keep it, and its
    /// lifecycle callback must run through the generated base class.
    static let catalogProduct = """
        import FerryStore
        import Foundation

        /// Written by hand: stamps new products. Public, as the classes were generated with `--access public`.
        public class Product: _Product {
            override public func awakeFromInsert() {
                super.awakeFromInsert()
                created_at = Date(timeIntervalSince1970: 1_000)
            }
        }

        """

    /// `CatalogApp`'s program: insert, save, fetch with typed requests and templates, read typed properties.
    static let catalogMain = #"""
        import FerryStore
        import Foundation

        let container = CatalogModel.makeContainer(
            name: "Catalog", storeDescription: PersistentStoreDescription(path: CommandLine.arguments[1]))
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let tea = Category.insert(into: context)
            tea.name = "Tea"
            let green = Product.insert(into: context)
            green.sku = "SKU-0001"
            green.name = "Green tea"
            green.price = Decimal(string: "4.50")
            green.quantity = 12
            green.weight = 0.25
            green.category = tea
            let black = Product.insert(into: context)
            black.sku = "SKU-0002"
            black.name = "Black tea"
            black.price = Decimal(string: "9.90")
            black.active = false
            tea.addToProducts(black)
            let order = Order.insert(into: context)
            order.order_id = "ORD-1"
            order.placed_at = Date(timeIntervalSince1970: 1_700_000_000)
            order.customer_name = "Ada"
            order.total = Decimal(string: "9.00") ?? 0
            let item = OrderItem.insert(into: context)
            item.order_id = "ORD-1"
            item.sku = "SKU-0001"
            item.quantity = 2
            item.order = order
            item.product = green
            try context.save()
        }
        try await container.performBackgroundTask { context in
            var request = Product.fetchRequest()
            request.sortDescriptors = [FetchSortDescriptor(key: Product.Attributes.sku)]
            for product in try context.fetch(request) {
                let price = product.price.map { "\($0)" } ?? "nil"
                let created = product.created_at.map { "\($0.timeIntervalSince1970)" } ?? "nil"
                print("product \(product.sku) \(product.name) \(price) active=\(product.active) "
                    + "category=\(product.category?.name ?? "nil") created=\(created)")
            }
            var cheap = Product.fetchRequest()
            cheap.predicate = FetchPredicate.Expression.keyPath(Product.Attributes.price) < .constant(.decimal(5))
            print("cheap \(try context.fetch(cheap).map(\.sku))")
            print("expensive \(try context.fetch(Product.expensiveProductsFetchRequest(minPrice: 5)).map(\.sku))")
            for category in try context.fetch(Category.fetchRequest()) {
                print("category \(category.name) products=\(category.products.map(\.sku).sorted()) "
                    + "productCount=\(category.productCount ?? -1)")
            }
            let since = Date(timeIntervalSince1970: 1_600_000_000)
            for order in try context.fetch(Order.unpaidOrdersSinceFetchRequest(since: since)) {
                print("unpaid \(order.order_id) \(order.customer_name) total=\(order.total) "
                    + "items=\(order.items.map { "\($0.sku)x\($0.quantity)" })")
            }
        }
        print("model \(CatalogModel.versionHash) \(CatalogModel.model.versionHash)")

        """#

    /// `XcodeApp`'s hand-written Dog class: the plugin must leave Dog's default class out.
    static let xcodeDog = """
        import FerryStore

        /// Written by hand, beside the classes the plugin generates.
        class Dog: _Dog {
            var title: String { "\\(name ?? "?") the \\(breed ?? "?")" }
        }

        """

    /// `XcodeApp`'s program: every attribute type of the Xcode fixture, inheritance, an ordered to-many, derived
    /// attributes and a transformable.
    static let xcodeMain = #"""
        import FerryStore
        import Foundation

        AttributeTransformers.register(JSONAttributeTransformer(), named: "StringListTransformer")
        let container = CatalogModel.makeContainer(
            name: "Catalog", storeDescription: PersistentStoreDescription(path: CommandLine.arguments[1]))
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let category = Category.insert(into: context)
            category.name = "Tea"
            let product = Product.insert(into: context)
            product.sku = "SKU-0042"
            product.category = category
            product.stock = 7
            product.rating = 4.5
            try product.setTags(["green", "loose"])
            let order = Order.insert(into: context)
            order.number = 1
            order.placedAt = Date(timeIntervalSince1970: 1_700_000_000)
            for quantity: Int32 in [3, 1] {
                let item = OrderItem.insert(into: context)
                item.quantity = quantity
                item.price = Decimal(Int(quantity)) * 2
                item.product = product
                order.addToItems(item)
            }
            let dog = Dog.insert(into: context)
            dog.name = "Rex"
            dog.breed = "Collie"
            try context.save()
        }
        try await container.performBackgroundTask { context in
            for product in try context.fetch(Product.expensiveProductsFetchRequest(minPrice: Decimal(string: "0.05") ?? 0)) {
                let tags = try product.tags ?? []
                print("product \(product.sku) price=\(product.price ?? -1) active=\(product.active) "
                    + "stock=\(product.stock ?? -1) rating=\(product.rating ?? -1) weight=\(product.weight ?? -1) "
                    + "tags=\(tags) category=\(product.categoryName ?? "nil") lower=\(product.lowerSku ?? "nil") "
                    + "homepage=\(product.homepage?.absoluteString ?? "nil") "
                    + "identifier=\(product.identifier?.uuidString ?? "nil") "
                    + "launched=\(product.launched?.timeIntervalSince1970 ?? -1) "
                    + "orderItems=\(product.orderItems.count)")
            }
            for order in try context.fetch(Order.allOrdersFetchRequest()) {
                print("order \(order.number) items=\(order.items.map(\.quantity)) itemCount=\(order.itemCount ?? -1) "
                    + "total=\(order.total ?? -1)")
            }
            for animal in try context.fetch(Animal.fetchRequest()) {
                print("animal \((animal as? Dog)?.title ?? "not a Dog")")
            }
        }
        print("model \(CatalogModel.versionHash) \(CatalogModel.model.versionHash)")

        """#

    /// `ShopApp`'s model, which the plugin finds by its `.ferrymodel.yml` name: property names that are Swift
    /// keywords or `ManagedObject` members, transformables with and without their Swift type, a many-to-many
    /// relationship and a template with an `IN` variable.
    static let shopModel = """
        entities:
          Note:
            attributes:
              title: { type: string, optional: false }
              class: string
              description: string
              sizes: { type: transformable, transformer: JSON, valueType: "[String: Int]" }
              extra: { type: transformable, transformer: JSON }
            relationships:
              tags: { to: Tag, toMany: true, inverse: notes }
          Tag:
            attributes:
              label: { type: string, optional: false }
            relationships:
              notes: { to: Note, toMany: true, inverse: tags }
        fetchRequestTemplates:
          titled: { entity: Note, predicate: "title IN $TITLES" }

        """

    /// `ShopApp`'s program.
    static let shopMain = #"""
        import FerryStore
        import Foundation

        let container = ShopModel.makeContainer(
            name: "Shop", storeDescription: PersistentStoreDescription(path: CommandLine.arguments[1]))
        try await container.loadPersistentStores()
        try await container.performBackgroundTask { context in
            let urgent = Tag.insert(into: context)
            urgent.label = "urgent"
            for title in ["A", "B", "C"] {
                let note = Note.insert(into: context)
                note.title = title
                note.class = "class \(title)"
                note.descriptionValue = "about \(title)"
                try note.setSizes(["width": title.count, "height": 2])
                try note.setExtra([title, title])
                if title != "B" { note.addToTags(urgent) }
            }
            try context.save()
        }
        try await container.performBackgroundTask { context in
            var request = try Note.titledFetchRequest(titles: ["A", "C"])
            request.sortDescriptors = [FetchSortDescriptor(key: Note.Attributes.title, ascending: false)]
            for note in try context.fetch(request) {
                let sizes = try note.sizes ?? [:]
                let extra = try note.extra(as: [String].self) ?? []
                print("note \(note.title) \(note.class ?? "nil") \(note.descriptionValue ?? "nil") "
                    + "sizes=\(sizes.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }) extra=\(extra) "
                    + "tags=\(note.tags.map(\.label))")
            }
            let urgent = try context.fetch(Tag.fetchRequest())
            print("tag \(urgent.map(\.label)) notes=\(urgent.first?.notes.map(\.title).sorted() ?? [])")
        }

        """#
}
