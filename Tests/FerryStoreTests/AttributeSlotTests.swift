import FerryTestSupport
import Foundation
import Testing

@testable import FerryStore

/// Setting and reading attributes by slot, as an importer does for the same columns of many objects: the same
/// values as by name, each entity (sub-entities included) with its own slots.
struct AttributeSlotTests {
    static let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Vehicle",
            attributes: [
                AttributeDescription(name: "vin", type: .string),
                AttributeDescription(name: "wheels", type: .integer16),
            ],
            relationships: [
                RelationshipDescription(name: "owner", destinationEntity: "Person", inverseName: "vehicles")
            ]),
        EntityDescription(
            name: "Truck", parentEntity: "Vehicle",
            attributes: [AttributeDescription(name: "payload", type: .double)]),
        EntityDescription(
            name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
            relationships: [
                RelationshipDescription(
                    name: "vehicles", destinationEntity: "Vehicle", inverseName: "owner", isToMany: true)
            ]),
    ])

    @Test func slotsSetAndReadWhatTheNamesDo() async throws {
        let folder = try TestSupport.makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let container = PersistentContainer(
            name: "Slots", model: Self.model,
            storeDescription: PersistentStoreDescription(path: folder.appendingPathComponent("s.sqlite").path))
        try await container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try await context.perform {
            let vehicle = context.insertObject(entityName: "Vehicle")
            let truck = context.insertObject(entityName: "Truck")
            let keys = ["owner", "wheels", "vin"]
            #expect(vehicle.entityLayoutID != truck.entityLayoutID)
            for object in [vehicle, truck] {
                let slots = object.attributeSlots(forKeys: keys)
                #expect(slots[0] == nil, "a relationship has no attribute slot")
                let wheels = try #require(slots[1])
                let vin = try #require(slots[2])
                object.setValue(.integer(6), attributeSlot: wheels)
                object.setValue(.string("VIN-\(object.entity.name)"), attributeSlot: vin)
                #expect(object.value(forKey: "wheels") == .integer(6))
                #expect(object.value(attributeSlot: vin) == object.value(forKey: "vin"))
            }
            try context.save()
        }
        let stored = try await context.perform {
            try context.fetch(FetchRequest(entityName: "Vehicle", sortDescriptors: [FetchSortDescriptor(key: "vin")]))
                .map { [$0.value(forKey: "vin"), $0.value(forKey: "wheels")] }
        }
        #expect(stored == [[.string("VIN-Truck"), .integer(6)], [.string("VIN-Vehicle"), .integer(6)]])
    }
}
