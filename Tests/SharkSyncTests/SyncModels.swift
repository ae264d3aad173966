import Foundation
import SharkORM
import SharkSync

@testable import SharkDriverConformance

/// A synced model with a UUID key, a few columns and a relationship to a synced folder.
@Model
final class SyncNote {
    var id: UUID
    var title: String = ""
    var body: String = ""
    var stars: Int = 0
    var score: Double?
    var folder: SyncFolder?

    init(id: UUID = UUID.v7(), title: String, body: String = "", stars: Int = 0) {
        self.id = id
        self.title = title
        self.body = body
        self.stars = stars
    }
}

/// A synced model with a String key.
@Model
final class SyncFolder {
    var id: String
    var name: String = ""

    init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// An `Int64` key numbered by the store: synced only with an assignment the options name.
@Model
final class SyncCounter {
    var count: Int = 0
}

/// An `Int64` key the app gives (an account number, a row id from a server).
@Model
final class SyncTally {
    var id: Int64
    var label: String = ""
    var count: Int = 0

    init(id: Int64, label: String, count: Int = 0) {
        self.id = id
        self.label = label
        self.count = count
    }
}

/// An `Int64` key the engine assigns, and a relationship to an `Int64`-keyed model.
@Model
final class SyncVisit {
    var place: String = ""
    var tally: SyncTally?

    init(place: String) { self.place = place }
}

/// A unique handle: a row whose claim loses shows the handle, U+001F and its key.
@Model
final class SyncAccount {
    var id: UUID
    var handle: String = ""
    var note: String = ""
    static let indexes: [Index<SyncAccount>] = [.unique(\.handle)]

    init(id: UUID = UUID.v7(), handle: String, note: String = "") {
        self.id = id
        self.handle = handle
        self.note = note
    }
}

/// A one-to-one relationship (a unique optional column: a losing row's reference reads nil)
/// and a unique index of two columns, one optional (a losing row's number reads nil).
@Model
final class SyncBadge {
    var id: String
    var account: SyncAccount?
    var series: String = ""
    var number: Int?
    static let indexes: [Index<SyncBadge>] = [.unique(\.account), .unique(\.series, \.number)]

    init(id: String, series: String = "", number: Int? = nil) {
        self.id = id
        self.series = series
        self.number = number
    }
}

/// Not syncable: a unique index whose only column can hold no stand-in.
@Model
final class SyncTicket {
    var id: UUID
    var number: Int = 0
    static let indexes: [Index<SyncTicket>] = [.unique(\.number)]

    init(number: Int) {
        self.id = UUID.v7()
        self.number = number
    }
}

/// Not syncable: two unique indexes sharing a column.
@Model
final class SyncSeat {
    var id: UUID
    var row: String = ""
    var seat: String = ""
    static let indexes: [Index<SyncSeat>] = [.unique(\.row), .unique(\.row, \.seat)]

    init(row: String, seat: String) {
        self.id = UUID.v7()
        self.row = row
        self.seat = seat
    }
}

/// A synced document as an app's first version declares it.
@Model(entity: "SyncDoc")
final class SyncDocV1 {
    var id: UUID
    var heading: String = ""

    init(id: UUID, heading: String) {
        self.id = id
        self.heading = heading
    }
}

/// The same entity one migration later: `heading` renamed to `title`, a column added.
@Model(entity: "SyncDoc")
final class SyncDocV2 {
    var id: UUID
    @Renamed(from: "heading") var title: String = ""
    var tags: String = ""

    init(id: UUID, title: String, tags: String) {
        self.id = id
        self.title = title
        self.tags = tags
    }
}

/// The entity two migrations on: `tags` renamed to `labels`.
@Model(entity: "SyncDoc")
final class SyncDocV3 {
    var id: UUID
    @Renamed(from: "heading") var title: String = ""
    @Renamed(from: "tags") var labels: String = ""

    init(id: UUID, title: String, labels: String) {
        self.id = id
        self.title = title
        self.labels = labels
    }
}

/// An entity only the second version has.
@Model
final class SyncLabel {
    var id: String
    var color: String = ""

    init(id: String, color: String) {
        self.id = id
        self.color = color
    }
}

/// Columns that merge by policies: a counter, a maximum (a real) and a minimum (an integer),
/// beside a plain last-writer-wins title.
@Model
final class SyncScore {
    var id: String
    var title: String = ""
    var likes: Int = 0
    var best: Double = 0
    var lowest: Int = 1_000

    init(id: String, title: String = "") {
        self.id = id
        self.title = title
    }
}

extension SyncScore: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncScore>] = [.counter(\.likes), .maximum(\.best), .minimum(\.lowest)]
}

/// Every kind of policy in one model: ``SyncScore``'s, and tags joined by an app resolver
/// (their union, kept sorted so that every replica stores the same text).
@Model
final class SyncTaggedScore {
    var id: String
    var title: String = ""
    var likes: Int = 0
    var best: Double = 0
    var lowest: Int = 1_000
    var tags: [String] = []

    init(id: String, title: String = "") {
        self.id = id
        self.title = title
    }
}

extension SyncTaggedScore: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncTaggedScore>] = [
        .counter(\.likes), .maximum(\.best), .minimum(\.lowest),
        .resolved(\.tags, as: "tag-union") { a, b in Array(Set(a.value + b.value)).sorted() },
    ]
}

/// The same entity on a replica that declares no policy: its columns merge by
/// last-writer-wins, so the others' counter and extremes are kept pending there.
@Model(entity: "SyncScore")
final class SyncScoreWithoutPolicies {
    var id: String
    var title: String = ""
    var likes: Int = 0
    var best: Double = 0
    var lowest: Int = 1_000

    init(id: String) { self.id = id }
}

/// Not syncable: a counter on an optional property.
@Model
final class SyncOptionalCounter {
    var id: String
    var likes: Int?

    init(id: String) { self.id = id }
}

extension SyncOptionalCounter: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncOptionalCounter>] = [.counter(\.likes)]
}

/// Drafts whose columns merge by app resolvers: the longer title (equal lengths: the greater
/// text), the furthest status, and the reviewers, a sorted union; a body by
/// last-writer-wins.
@Model
final class SyncDraft {
    var id: String
    var title: String = ""
    var status: SyncDraftStatus = .draft
    var reviewers: [String] = []
    var body: String = ""

    init(id: String, title: String = "") {
        self.id = id
        self.title = title
    }
}

/// A draft's status, which only moves forward.
enum SyncDraftStatus: String, Codable, CaseIterable {
    case draft, review, published

    var rank: Int { Self.allCases.firstIndex(of: self)! }
}

extension SyncDraft: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncDraft>] = [
        .resolved(\.title, as: "longer-title") { a, b in
            (a.value.count, a.value) >= (b.value.count, b.value) ? a.value : b.value
        },
        .resolved(\.status, as: "furthest-status") { a, b in a.value.rank >= b.value.rank ? a.value : b.value },
        .resolved(\.reviewers, as: "reviewer-union") { a, b in Array(Set(a.value + b.value)).sorted() },
    ]
}

/// The same entity with a resolver that is no join (it takes the incoming value: not
/// commutative, though it keeps every local write), which debug builds catch.
@Model(entity: "SyncDraft")
final class SyncDraftTakingIncoming {
    var id: String
    var title: String = ""
    var status: SyncDraftStatus = .draft
    var reviewers: [String] = []
    var body: String = ""

    init(id: String) { self.id = id }
}

extension SyncDraftTakingIncoming: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncDraftTakingIncoming>] = [
        .resolved(\.title, as: "longer-title") { _, b in b.value },
        .resolved(\.status, as: "furthest-status") { a, b in a.value.rank >= b.value.rank ? a.value : b.value },
        .resolved(\.reviewers, as: "reviewer-union") { a, b in Array(Set(a.value + b.value)).sorted() },
    ]
}

/// The same entity, whose title resolver has another name: another rule.
@Model(entity: "SyncDraft")
final class SyncDraftRenamedResolver {
    var id: String
    var title: String = ""
    var status: SyncDraftStatus = .draft
    var reviewers: [String] = []
    var body: String = ""

    init(id: String) { self.id = id }
}

extension SyncDraftRenamedResolver: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncDraftRenamedResolver>] = [
        .resolved(\.title, as: "longest-title") { a, b in a.value.count >= b.value.count ? a.value : b.value },
        .resolved(\.status, as: "furthest-status") { a, b in a.value.rank >= b.value.rank ? a.value : b.value },
        .resolved(\.reviewers, as: "reviewer-union") { a, b in Array(Set(a.value + b.value)).sorted() },
    ]
}

/// Not syncable: a resolver with a name a header cannot carry.
@Model
final class SyncBadResolverName {
    var id: String
    var title: String = ""

    init(id: String) { self.id = id }
}

extension SyncBadResolverName: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncBadResolverName>] = [
        .resolved(\.title, as: "two words") { a, b in max(a.value, b.value) }
    ]
}

/// Not syncable: a resolver of JSON values over an optional enum, which is stored as its raw
/// value.
@Model
final class SyncOptionalStatusResolver {
    var id: String
    var status: SyncDraftStatus?

    init(id: String) { self.id = id }
}

extension SyncOptionalStatusResolver: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncOptionalStatusResolver>] = [
        .resolved(\.status, as: "any-status") { a, b in a.value ?? b.value }
    ]
}

/// The same entity, whose title is optional (a migration elsewhere): its NULL titles do not
/// fit a replica whose title is not.
@Model(entity: "SyncDraft")
final class SyncDraftOptionalTitle {
    var id: String
    var title: String?
    var status: SyncDraftStatus = .draft
    var reviewers: [String] = []
    var body: String = ""

    init(id: String) { self.id = id }
}

extension SyncDraftOptionalTitle: SyncMerging {
    static let mergePolicies: [MergePolicy<SyncDraftOptionalTitle>] = [
        .resolved(\.title, as: "longer-title") { a, b in
            ((a.value ?? "").count, a.value ?? "") >= ((b.value ?? "").count, b.value ?? "") ? a.value : b.value
        },
        .resolved(\.status, as: "furthest-status") { a, b in a.value.rank >= b.value.rank ? a.value : b.value },
        .resolved(\.reviewers, as: "reviewer-union") { a, b in Array(Set(a.value + b.value)).sorted() },
    ]
}
