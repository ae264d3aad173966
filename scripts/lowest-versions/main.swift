// The LowestVersions package's program (scripts/lowest_versions.py): built with the lowest
// dependency versions SharkORM's Package.swift claims, and with sync from SharkSync's sources
// compiled as a module of another package.
import Foundation
import SharkHubAPI
import SharkMemory
import SharkORM
import SharkSQLite
import SharkSyncOutside

@Model
final class Note {
    var id: UUID
    var title: String = ""
    var stars: Int8 = 0
    var written: Date = Date(timeIntervalSince1970: 0)

    init(title: String, stars: Int8) {
        self.id = UUID()
        self.title = title
        self.stars = stars
    }
}

// A SQLite laptop and an in-memory phone exchange one sealed change log.
let models: [any Model.Type] = [Note.self]
let laptop = try SyncEngine(store: try Store(.sqliteTemporary), lineage: "lowest", models: models)
let phone = try SyncEngine(store: try Store(.memory), lineage: "lowest", models: models)
try laptop.store.commit([Note(title: "first", stars: 3), Note(title: "second", stars: 5)])

let key = ChangeLogKey.random()
try phone.importChanges(from: try laptop.exportChanges(key: key), key: key)
let titles = try Note.query(in: phone.store).orderBy(\.title).fetch().map(\.title)
guard titles == ["first", "second"] else {
    fatalError("expected the two notes after the import, read \(titles)")
}
// The hub's API types, on the same swift-crypto.
guard DeviceToken(parsing: "shark1.not-a-device.not-a-secret") == nil else {
    fatalError("a malformed device token parsed")
}
print("SharkORM \(sharkORMVersion) with swift-syntax 600.0.1 and swift-crypto 3.12.3: \(titles)")
