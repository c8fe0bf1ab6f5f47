/// "Did you mean …?": the name a mistyped one most likely meant, for model files, pipeline files and the
/// command line alike.
package enum NameSuggestion {
    /// `unknown key 'optinal'; did you mean 'optional'?`, or the full list of what was expected.
    package static func unknown(_ what: String, _ found: String, expected: [String]) -> String {
        if let suggestion = suggestion(for: found, among: expected) {
            return "unknown \(what) '\(found)'; did you mean '\(suggestion)'?"
        }
        var seen: Set<String> = []
        let distinct = expected.filter { seen.insert($0).inserted }
        return "unknown \(what) '\(found)'; expected one of \(distinct.joined(separator: ", "))"
    }

    /// The candidate `word` was most likely meant to be: one that differs only in case, or by at most two
    /// edits (one for short words); `nil` when nothing is close.
    package static func suggestion(for word: String, among candidates: [String]) -> String? {
        if let sameLetters = candidates.first(where: { $0.lowercased() == word.lowercased() }) {
            return sameLetters
        }
        let limit = word.count <= 4 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit && distance < (best?.distance ?? Int.max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// Edits (insertions, deletions, substitutions and swaps of neighbours) that turn `a` into `b`.
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        // Three rows of the optimal-string-alignment table are enough.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}
