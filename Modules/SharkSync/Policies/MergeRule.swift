@_spi(SharkReplication) import SharkORM

/// The merge rule of a column, as the sync metadata records it and a change log's header names
/// it: `""` (last-writer-wins), `counter`, `maximum`, `minimum` or `resolver:<name>`.
///
/// A resolver rule carries the app's function when the engine was opened with the model that
/// declares it; one read from a file or from the store's metadata carries only the name. Two
/// rules are equal when their names are: the function is not part of what is recorded.
enum MergeRule: Sendable, Hashable {
    case lastWriterWins
    case counter
    case maximum
    case minimum
    case resolver(MergeResolver)

    /// The longest resolver name a rule holds (in UTF-8 bytes).
    static let longestResolverName = 200

    /// The prefix of a resolver rule's name.
    private static let resolverPrefix = "resolver:"

    init?(rawValue: String) {
        switch rawValue {
        case "": self = .lastWriterWins
        case "counter": self = .counter
        case "maximum": self = .maximum
        case "minimum": self = .minimum
        default:
            guard rawValue.hasPrefix(Self.resolverPrefix) else { return nil }
            let name = String(rawValue.dropFirst(Self.resolverPrefix.count))
            guard MergeResolver.isValidName(name) else { return nil }
            self = .resolver(MergeResolver(name: name, join: nil))
        }
    }

    var rawValue: String {
        switch self {
        case .lastWriterWins: return ""
        case .counter: return "counter"
        case .maximum: return "maximum"
        case .minimum: return "minimum"
        case .resolver(let resolver): return Self.resolverPrefix + resolver.name
        }
    }

    /// Whether this is an app resolver's rule.
    var isResolver: Bool { resolver != nil }

    /// The app resolver of a resolver rule.
    var resolver: MergeResolver? {
        if case .resolver(let resolver) = self { return resolver }
        return nil
    }

    /// Whether the column's file value is an envelope of policy state that names sites
    /// rather than the value itself: a counter's totals, a resolver's contributions and value.
    var namesSites: Bool { self == .counter || isResolver }
}
