import Observation

/// The latest value of a ``LiveQuery`` as an `@Observable` object: what a SwiftUI view binds a
/// list to (no SwiftUI import needed; it compiles everywhere the Observation module does).
///
/// ```swift
/// @MainActor struct PeopleList: View {
///     @State var people: LiveResults<[Person]>
///     init(store: Store) throws {
///         _people = State(wrappedValue: LiveResults(try Person.query(in: store).orderBy(\.name).observe()))
///     }
///     var body: some View {
///         List(people.value ?? [], id: \.id) { Text($0.name) }
///     }
/// }
/// ```
///
/// It starts observing when created and stops when released. Values arrive on the main actor;
/// `error` holds what ended the observation early, if anything did.
@Observable
@MainActor
public final class LiveResults<Value> {
    /// The latest result; nil until the first one arrives.
    public private(set) var value: Value?
    /// The commit the latest result reflects (see ``ObservedValue/sequence``).
    public private(set) var sequence: UInt64 = 0
    /// Why observing stopped early (a failing query), if it did.
    public private(set) var error: (any Error)?
    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts observing `query`.
    public init(_ query: LiveQuery<Value>) {
        task = Task { [weak self] in
            do {
                for try await observed in query {
                    guard let self else { return }
                    self.value = observed.value
                    self.sequence = observed.sequence
                }
            } catch {
                self?.error = error
            }
        }
    }

    /// Stops observing; the last value stays.
    public func stop() {
        task?.cancel()
    }

    isolated deinit {
        task?.cancel()
    }
}
