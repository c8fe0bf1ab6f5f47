import ArgumentParser
import FerryStore

/// `--sync`: how hard a run's commits are pushed to disk, SQLite's `synchronous` level (`ferry import`, `ferry run`).
struct SyncOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How hard commits are pushed to disk: normal, full or off.",
            discussion: """
                normal (default): no crash, of ferry or of the machine, corrupts the store; a crash of the \
                machine or a power loss may lose the last chunks, which --resume imports again. full: every chunk \
                synced as it commits. off: no syncs, fastest; a crash of ferry is still safe, but a crash of the \
                machine or a power loss may corrupt the store: for a store you can rebuild from its inputs.
                """))
    var sync: SyncLevel = .normal

    /// The level to open the store with.
    var synchronous: PersistentStoreDescription.Synchronous {
        switch sync {
        case .normal: .normal
        case .full: .full
        case .off: .off
        }
    }
}

/// The `--sync` spellings.
enum SyncLevel: String, ExpressibleByArgument, CaseIterable {
    case normal
    case full
    case off
}
