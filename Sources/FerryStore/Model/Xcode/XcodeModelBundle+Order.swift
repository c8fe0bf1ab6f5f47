import Foundation

/// The order of an `.xcdatamodeld`'s versions, and the versions as a store's migration chain.
///
/// Xcode keeps no order of its own: it names a new version after the model and a number (`Catalog`, `Catalog 2`, …
/// `Catalog 10`) and `.xccurrentversion` names the one in use. Ferry therefore orders the versions by name, as
/// people read them:
///
/// - names are compared character by character (by Unicode code point), except that a run of digits is compared
///   with the run at the same place in the other name as a number (`Catalog 9` before `Catalog 10`);
/// - a name that is the start of another comes first (`Catalog` before `Catalog 2`).
///
/// As a migration chain, the order must leave no doubt: two names the rule cannot tell apart (`Catalog 2` and
/// `Catalog 02`) are an error, and so is a current version that is not the last, since a version after it may be a
/// draft or a misnamed older one.
extension XcodeModelBundle {
    /// Every version, oldest first and ending with the current one: the versions a store moves through, one at a
    /// time, as a versioned model folder's (see ``VersionedModelFolder``).
    ///
    /// - Throws: ``ModelError`` ``ModelError/Code/invalidValue`` naming the versions when two names have no order
    ///   between them, or when a version comes after the current one.
    public func migrationChain() throws -> [Version] {
        for (earlier, later) in zip(versions, versions.dropFirst())
        where Self.naturalOrder(earlier.name, later.name) == 0 {
            throw ModelError(
                .invalidValue,
                "the versions '\(earlier.name)' and '\(later.name)' have no order: versions are ordered by name, "
                    + "numbers compared as numbers, so one of them must be renamed", file: path)
        }
        guard let position = versions.firstIndex(of: currentVersion) else { return versions }
        let after = versions[(position + 1)...].map(\.name)
        guard after.isEmpty else {
            throw ModelError(
                .invalidValue,
                "the current version '\(currentVersion.name)' is not the last: "
                    + after.map { "'\($0)'" }.joined(separator: ", ")
                    + " come\(after.count == 1 ? "s" : "") after it by name (numbers compared as numbers); a store "
                    + "migrates through the versions in that order up to the current one, so make the last version "
                    + "current, or rename or remove the later ones", file: path)
        }
        return versions
    }

    /// Compares two version names by the rule above: negative when `left` comes first, positive when `right`
    /// does, zero when the rule cannot tell them apart.
    static func naturalOrder(_ left: String, _ right: String) -> Int {
        let a = Array(left.unicodeScalars)
        let b = Array(right.unicodeScalars)
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            guard isDigit(a[i]) && isDigit(b[j]) else {
                if a[i] != b[j] { return a[i].value < b[j].value ? -1 : 1 }
                i += 1
                j += 1
                continue
            }
            let (leftStart, leftEnd) = digitRun(a, from: i)
            let (rightStart, rightEnd) = digitRun(b, from: j)
            // Without leading zeros, a longer run is a larger number; runs of one length compare digit by digit.
            let (leftLength, rightLength) = (leftEnd - leftStart, rightEnd - rightStart)
            if leftLength != rightLength { return leftLength < rightLength ? -1 : 1 }
            for (x, y) in zip(a[leftStart..<leftEnd], b[rightStart..<rightEnd]) where x != y {
                return x.value < y.value ? -1 : 1
            }
            i = leftEnd
            j = rightEnd
        }
        if i == a.count && j == b.count { return 0 }
        return i == a.count ? -1 : 1
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// The run of digits starting at `start`: where its significant digits start (after leading zeros, keeping one
    /// digit) and where it ends.
    private static func digitRun(_ scalars: [Unicode.Scalar], from start: Int) -> (Int, Int) {
        var end = start
        while end < scalars.count && isDigit(scalars[end]) { end += 1 }
        var significant = start
        while significant < end - 1 && scalars[significant] == "0" { significant += 1 }
        return (significant, end)
    }
}
