import Testing

@testable import FerryPipeline

/// An import spec's defaults.
struct ImportSpecTests {
    @Test func aChunkHoldsTheModesDefaultUnlessTheSpecGivesItsSize() {
        var spec = ImportSpec(entity: "Product", sources: ["products.csv"])
        #expect(spec.chunkSize == nil)
        #expect(spec.recordsPerChunk == 50_000)
        spec.mode = .context
        #expect(spec.recordsPerChunk == 6_000)
        spec.chunkSize = 7
        #expect(spec.recordsPerChunk == 7)
        spec.mode = .batch
        #expect(spec.recordsPerChunk == 7)
    }

    @Test func aBatchLoadWhoseIndexesAreDeferredTakesSmallerChunksUnlessTheSpecGivesItsSize() {
        var spec = ImportSpec(entity: "Product", sources: ["products.csv"])
        #expect(spec.recordsPerChunk(deferringIndexes: true) == 25_000)
        #expect(spec.recordsPerChunk(deferringIndexes: false) == 50_000)
        spec.mode = .context
        #expect(spec.recordsPerChunk(deferringIndexes: true) == 6_000)
        #expect(spec.recordsPerChunk(deferringIndexes: false) == 6_000)
        spec.mode = .batch
        spec.chunkSize = 50_000
        #expect(spec.recordsPerChunk(deferringIndexes: true) == 50_000)
    }
}
