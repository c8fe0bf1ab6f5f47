import FerrySQLite
import Foundation
import Testing

@testable import FerryStore

// Foundation has a `FetchPredicate` and a `FetchPredicateError` too; in this file the names mean Ferry's.

/// Predicates that parse but cannot run on the store fail when compiled, naming the entity and the key path.
struct PredicateCompileErrorTests {
    let fixture: PredicateFixture

    init() throws {
        fixture = try PredicateFixture()
    }

    @Test func anUnknownKeyPathNamesTheEntityAndTheKeyPath() throws {
        let error = try #require(try fixture.compileError("colour == 'red'"))
        #expect(error.code == .unknownKeyPath)
        #expect(error.message == "Product has no attribute or relationship 'colour' (key path 'colour' of Product)")
        #expect(error.column == nil)
        #expect(error.format == #"colour == "red""#)
        let nested = try #require(try fixture.compileError("category.title == 'x'"))
        #expect(
            nested.message == "Category has no attribute or relationship 'title' (key path 'category.title' of Product)"
        )
        let past = try #require(try fixture.compileError("name.length == 3"))
        #expect(past.code == .unknownKeyPath)
        #expect(past.message == "key path 'name.length' of Product goes on past the attribute 'name'")
        let hostile = try #require(try fixture.compileError("%K == 1", "name\" = 1 OR \"x"))
        #expect(hostile.code == .unknownKeyPath, "%K names a key path; it never reaches the SQL unchecked")
        #expect(
            try fixture.compileError("ANY tags.colour == 'x'")?.message
                == "Tag has no attribute or relationship 'colour' (key path 'tags.colour' of Product)")
    }

    @Test func aToManyKeyPathNeedsAnAggregateOperatorOrCount() throws {
        let error = try #require(try fixture.compileError("tags.label == 'organic'"))
        #expect(error.code == .toManyKeyPath)
        #expect(
            error.message == "'tags.label' of Product goes through a to-many relationship; use ANY, ALL, NONE or @count"
        )
        #expect(try fixture.compileError("name == tags.label")?.code == .toManyKeyPath)
        #expect(try fixture.compileError("ANY tags.label == tags.label")?.code == .toManyKeyPath)
        #expect(try fixture.compileError("category.@count > 1")?.code == .unknownKeyPath)
        #expect(try fixture.compileError("name.@count > 1")?.code == .unknownKeyPath)
        #expect(try fixture.compileError("tags.@sum > 1")?.code == .unsupported)
        let modifier = try #require(try fixture.compileError("ANY name == 'x'"))
        #expect(modifier.code == .unsupported)
        #expect(modifier.message.contains("'name' of Product is not one"))
    }

    @Test func comparingAcrossTypesIsATypeMismatch() throws {
        let error = try #require(try fixture.compileError("name == 3"))
        #expect(error.code == .typeMismatch)
        #expect(error.message == "'name' of Product is a string attribute; it cannot be compared with an integer")
        #expect(
            try fixture.compileError("price == 'cheap'")?.message
                == "'price' of Product is a decimal attribute; it cannot be compared with a string")
        #expect(try fixture.compileError("released > 5")?.code == .typeMismatch)
        #expect(try fixture.compileError("code == 'not a uuid'")?.code == .typeMismatch)
        #expect(try fixture.compileError("active == 'yes'")?.code == .typeMismatch)
        #expect(try fixture.compileError("category == 'Tea'")?.code == .typeMismatch)
        #expect(try fixture.compileError("tags.@count == 'two'")?.code == .typeMismatch)
        #expect(try fixture.compileError("sku IN {'A-1', 2}")?.code == .typeMismatch)
        #expect(
            try fixture.compileError("quantity BEGINSWITH '1'")?.message
                == "'quantity' of Product is an integer32 attribute; BEGINSWITH needs a string")
        #expect(try fixture.compileError("name CONTAINS 3")?.code == .typeMismatch)
        #expect(
            try fixture.compileError("name == price")?.message
                == "'name' of Product is a string attribute and 'price' of Product is a decimal attribute; "
                + "they cannot be compared"
        )
        #expect(try fixture.compileError("quantity BETWEEN {1, 2, 3}")?.code == .typeMismatch)
        #expect(try fixture.compileError("quantity BETWEEN {1, nil}")?.code == .typeMismatch)
        #expect(try fixture.compileError("quantity IN 3")?.code == .typeMismatch)
        #expect(
            try fixture.compileError("ANY tags.label == 3")?.message
                == "'tags.label' of Product is a string attribute; it cannot be compared with an integer")
    }

    @Test func constructsTheStoreCannotEvaluateAreUnsupported() throws {
        #expect(try fixture.compileError("price < nil")?.code == .unsupported)
        #expect(try fixture.compileError("notes == nil")?.code == .unsupported, "transformable values are opaque")
        #expect(try fixture.compileError("scratch == 'x'")?.code == .unsupported, "transient attributes have no column")
        #expect(try fixture.compileError("'a' BEGINSWITH name")?.code == .unsupported)
        #expect(try fixture.compileError("name BEGINSWITH sku")?.code == .typeMismatch)
        #expect(try fixture.compileError("sku IN {name}")?.code == .unsupported)
    }

    @Test func unsubstitutedVariablesAndUnknownEntitiesFail() throws {
        let variable = try #require(try fixture.compileError("price > $MIN_PRICE"))
        #expect(variable.code == .unboundVariable)
        #expect(variable.message == "$MIN_PRICE has no value: substitute it before compiling")
        #expect(try fixture.compileError("sku IN {$A}")?.code == .unboundVariable)
        #expect(throws: FetchPredicateError.self) {
            try FetchPredicate.truePredicate.sql(for: "Nope", in: fixture.schema)
        }
        do {
            _ = try FetchPredicate.truePredicate.sql(for: "Nope", in: fixture.schema)
        } catch let error as FetchPredicateError {
            #expect(error.code == .unknownEntity)
            #expect(error.message == "the model has no entity 'Nope'")
        }
    }
}
