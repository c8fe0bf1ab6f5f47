import Testing

@testable import FerryStore

/// ManagedObjectModel's resolution of inheritance: tables, inherited properties and constraints.
struct ManagedObjectModelTests {
    let model = ManagedObjectModel(entities: [
        EntityDescription(
            name: "Animal", isAbstract: true,
            attributes: [AttributeDescription(name: "id", type: .integer64, isOptional: false)],
            uniquenessConstraints: [["id"]]),
        EntityDescription(
            name: "Dog", parentEntity: "Animal", attributes: [AttributeDescription(name: "breed", type: .string)]),
        EntityDescription(
            name: "Puppy", parentEntity: "Dog", attributes: [AttributeDescription(name: "ageWeeks", type: .integer16)]),
        EntityDescription(name: "Owner"),
    ])

    @Test func aSubentityLivesInItsRootEntitysTable() {
        #expect(model.rootEntity(of: "Puppy") == "Animal")
        #expect(model.ancestry(of: "Puppy").map(\.name) == ["Animal", "Dog", "Puppy"])
        #expect(model.rootEntity(of: "Owner") == "Owner")
    }

    @Test func inheritedPropertiesAndConstraintsComeFirst() {
        #expect(model.allAttributes(of: "Puppy").map(\.name) == ["id", "breed", "ageWeeks"])
        #expect(model.allUniquenessConstraints(of: "Dog") == [["id"]])
    }

    @Test func subentitiesIncludeIndirectOnes() {
        #expect(model.subentities(of: "Animal") == ["Dog", "Puppy"])
        #expect(model.subentities(of: "Owner").isEmpty)
    }

    @Test func anUnknownEntityHasNoAncestry() {
        #expect(model.ancestry(of: "Cat").isEmpty)
        #expect(model.entity(named: "Cat") == nil)
    }
}
