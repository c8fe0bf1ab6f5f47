extension ConflictResolver {
    /// Resolves each locking finding as `custom` decides: with the built-in policy it names, or as object-trump
    /// with its values written on top. Findings it resolves with ``MergePolicy/error`` (and value resolutions of
    /// rows deleted in the store) fail the save together, before anything is changed.
    static func resolve(
        _ findings: [ConflictDetector.LockingFinding], by custom: any CustomMergePolicy, in plan: inout SavePlan,
        outcome: inout SaveOutcome, _ layouts: ObjectLayouts
    ) throws {
        guard !findings.isEmpty else { return }
        let decisions = findings.map { custom.resolve($0.conflict) }
        let refused = zip(findings, decisions).filter { finding, decision in
            switch decision {
            case .policy(let policy): policy == .error
            case .values: finding.stored == nil
            }
        }
        if !refused.isEmpty {
            throw SaveConflictError(lockingConflicts: refused.map(\.0.conflict), constraintConflicts: [])
        }
        for (finding, decision) in zip(findings, decisions) {
            switch decision {
            case .policy(let policy):
                try ConflictResolver(policy: policy, layouts: layouts).resolve([finding], in: &plan, outcome: &outcome)
            case .values(let values):
                try ConflictResolver(policy: .mergeByPropertyObjectTrump, layouts: layouts)
                    .resolve([finding], in: &plan, outcome: &outcome)
                let id = finding.conflict.objectID
                guard let index = plan.updates.firstIndex(where: { $0.objectID == id }) else { continue }
                let layout = layouts[id.entity]
                for (name, value) in values.sorted(by: { $0.key < $1.key }) {
                    guard case .attribute(let slot)? = layout.slots[name], layout.writableAttributeSlots.contains(slot)
                    else {
                        preconditionFailure(
                            "a custom merge policy set '\(name)' of \(layout.name), which is not a writable attribute")
                    }
                    plan.updates[index].attributes[slot] = value
                    if !plan.updates[index].changedAttributes.contains(slot) {
                        plan.updates[index].changedAttributes.append(slot)
                    }
                }
            }
        }
    }

    /// Resolves each constraint finding with the built-in policy `custom` names for it; findings it leaves to
    /// ``MergePolicy/error`` fail the save together, before anything is changed.
    static func resolve(
        _ findings: [ConflictDetector.ConstraintFinding], by custom: any CustomMergePolicy, in plan: inout SavePlan,
        outcome: inout SaveOutcome, _ layouts: ObjectLayouts
    ) throws {
        let policies = findings.map { custom.resolve($0.conflict) }
        let refused = zip(findings, policies).filter { $0.1 == .error }.map(\.0.conflict)
        if !refused.isEmpty { throw SaveConflictError(lockingConflicts: [], constraintConflicts: refused) }
        for (finding, policy) in zip(findings, policies) {
            try ConflictResolver(policy: policy, layouts: layouts).resolve([finding], in: &plan, outcome: &outcome)
        }
    }
}
