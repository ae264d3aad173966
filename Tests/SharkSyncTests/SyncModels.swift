import Foundation
import SharkORM

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

/// Not syncable: a unique index besides the key.
@Model
final class SyncHandle {
    var id: UUID
    var handle: String = ""
    static let indexes: [Index<SyncHandle>] = [.unique(\.handle)]

    init(handle: String) {
        self.id = UUID.v7()
        self.handle = handle
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
