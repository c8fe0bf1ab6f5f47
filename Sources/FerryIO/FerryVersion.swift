/// Ferry's release: what `ferry --version` prints and how the files Ferry writes name their writer (a Parquet
/// footer's `created_by`, `ferry version 0.1.0`, which readers such as parquet-mr look at to decide whether to trust a
/// file's statistics).
public enum FerryVersion {
    /// The release number, `MAJOR.MINOR.PATCH`.
    public static let current = "0.1.0"
}
