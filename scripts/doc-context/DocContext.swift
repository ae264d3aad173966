// The context the documentation's examples take for granted, and nothing else: the models
// they query (the README's Person, a company's employees and departments, a shop's orders),
// and stand-ins for an app's own state. scripts/doc_snippets.py builds every example of the
// doc comments, the DocC articles and docs/ against it. Examples name what they use; a name
// missing here fails the build, which is the point.
import Foundation
import SharkORM

@Model
public final class Person {
    public var name: String = ""
    public var age: Int = 0
    public var email: String?
    public var nickname: String?
    public var team: String = ""
    public var months: Int = 0
    public var salary: Int = 0
    public var bonus: Int?
    public var fullName: String = ""
    public var firstName: String = ""
    public var lastName: String = ""
    public var level: Int = 0

    public init(name: String, age: Int = 0) {
        self.name = name
        self.age = age
    }

    public init() {}
}

@Model
public final class Location {
    public var city: String = ""
    public init() {}
}

@Model
public final class Department {
    public var name: String = ""
    public var city: String = ""
    public var location: Location?
    public init() {}
}

@Model
public final class Badge {
    public var code: String = ""
    public init() {}
}

@Model
public final class Employee {
    public var name: String = ""
    public var team: String = ""
    public var city: String = ""
    public var salary: Decimal = 0
    public var email: String?
    public var active: Bool = true
    public var rating: Double = 0
    public var department: Department?
    public var manager: Person?
    @Relationship(deleteRule: .cascade) public var badge: Badge?
    public init() {}
}

@Model
public final class Office {
    public var city: String = ""
    public var address: String = ""
    public init() {}
}

@Model
public final class Line {
    public var price: Double = 0
    public var quantity: Double = 0
    public init() {}
}

@Model
public final class Product {
    public var price: Decimal = 0
    public init() {}
}

@Model
public final class Author {
    public var name: String = ""
    public var books: Int = 0
    public init() {}
}

@Model
public final class Book {
    public var pages: Int = 0
    public var author: Author?
    public init() {}
}

@Model
public final class Project {
    public var spent: Int = 0
    public var committed: Int = 0
    public var budget: Int = 0
    public init() {}
}

@Model
public final class Reading {
    public var delta: Double = 0
    public init() {}
}

@Model
public final class Order {
    public var item: Int64 = 0
    public var quantity: Int = 0
    public init(item: Int64, quantity: Int) {
        self.item = item
        self.quantity = quantity
    }
    public init() {}
}

@Model
public final class Invoice {
    public var total: Decimal = 0
    public init() {}
}

@Model
public final class Stock {
    public var count: Int = 0
    public init() {}
}

@Model
public final class Account {
    public var balance: Int = 0
    public init() {}
}

@Model
public final class Setting {
    public var id: String
    public var value: String = ""
    public init(id: String, value: String) {
        self.id = id
        self.value = value
    }
}

@Model
public final class AuditEntry {
    public var summary: String = ""
    public init(_ change: Change) { summary = "\(change)" }
    public init(_ order: Order) { summary = "order \(order.id)" }
    public init() {}
}

@Model
public final class Note {
    public var id: UUID
    public var text: String = ""
    public init(text: String) {
        self.id = UUID()
        self.text = text
    }
}

@Model
public final class Folder {
    public var id: UUID
    public var name: String = ""
    public init() { id = UUID() }
}

@Model
public final class Club {
    public var name: String = ""
    public init() {}
}

// An app's own state, as the examples that update a screen assume it.

/// The subscription a screen keeps.
@MainActor public var subscription: EventSubscription?
/// A screen's title.
@MainActor public var title = ""
/// What a screen lists.
@MainActor public var people: [Person] = []
@MainActor public var names: [String] = []
@MainActor public var oldTitles: [String] = []
/// Draws what a live query delivered.
@MainActor public func render(_ people: [Person]) {}
/// Updates a badge count after a commit.
public func refreshBadges(_ event: CommitEvent) {}

/// A main-actor model of an app's screen, fed commit events.
@MainActor public final class ScreenModel {
    public func apply(_ event: CommitEvent) {}
}
@MainActor public let model = ScreenModel()

/// A stand-in for UIKit's `UITableView`: what the results-controller example calls.
@MainActor public final class TableView {
    public enum RowAnimation { case fade, automatic }
    public func performBatchUpdates(_ updates: () -> Void) { updates() }
    public func deleteRows(at indexPaths: [(section: Int, row: Int)], with animation: RowAnimation) {}
    public func insertRows(at indexPaths: [(section: Int, row: Int)], with animation: RowAnimation) {}
}
@MainActor public let tableView = TableView()

/// A stand-in for SwiftUI, which Linux does not have: enough for the `LiveResults` example
/// to type-check as it would on an Apple platform.
@MainActor public protocol View {
    associatedtype Body: View
    @MainActor var body: Body { get }
}
public struct Text: View {
    public init(_ text: String) {}
    public var body: Text { self }
}
public struct List: View {
    public init<Data: RandomAccessCollection, ID: Hashable>(
        _ data: Data, id: KeyPath<Data.Element, ID>, @ViewBuilder row: (Data.Element) -> Text
    ) {}
    public var body: List { self }
}
@resultBuilder public enum ViewBuilder {
    public static func buildBlock(_ text: Text) -> Text { text }
}
@propertyWrapper public struct State<Value> {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

/// The store of an app's examples that declare functions of their own (a screen's
/// `reload()`): never opened here, since the examples are type-checked, not run.
@MainActor public var store: Store { fatalError("the documentation's examples are type-checked, not run") }

/// The transaction observer the examples register: it records each commit's changes.
public final class AuditLog: TransactionObserver {
    public init() {}
    public func transactionWillCommit(_ changes: [Change], in transaction: WriteTransaction) throws {
        for change in changes { try transaction.commit(AuditEntry(change)) }
    }
}
