import Foundation
import SharkORM

/// Models with to-one relationships: Employee → Department → Location, a self-reference
/// (mentor), app-assigned keys (Team, Player) and a non-optional relationship (Assignment).
@Model
final class Location {
    var name: String = ""

    init(_ name: String) { self.name = name }
}

@Model
final class Department {
    var name: String = ""
    var location: Location?

    init(_ name: String, location: Location? = nil) {
        self.name = name
        self.location = location
    }
}

@Model
final class Employee {
    var name: String = ""
    var salary: Int = 0
    var department: Department?
    var mentor: Employee?

    init(_ name: String, salary: Int = 0, department: Department? = nil) {
        self.name = name
        self.salary = salary
        self.department = department
    }
}

@Model
final class Team {
    var id: UUID
    var name: String = ""

    init(_ name: String) {
        self.id = UUID.v7()
        self.name = name
    }
}

@Model
final class Player {
    var id: String
    var team: Team?

    init(_ id: String, team: Team? = nil) {
        self.id = id
        self.team = team
    }
}

@Model
final class Project {
    var title: String = "untitled"

    init(_ title: String) { self.title = title }
}

@Model
final class Assignment {
    var note: String = ""
    var project: Project

    init(_ note: String, project: Project) {
        self.note = note
        self.project = project
    }
}

/// Delete rules: books cascade with their author, chapters with their book; a review denies
/// the removal of its book.
@Model
final class Author {
    var name: String = ""
    var books: Query<Book> { get throws { try inverse(\Book.author) } }

    init(_ name: String) { self.name = name }
}

@Model
final class Book {
    var title: String = ""
    var pages: Int = 0
    @Relationship(deleteRule: .cascade) var author: Author?

    init(_ title: String, pages: Int = 0, author: Author? = nil) {
        self.title = title
        self.pages = pages
        self.author = author
    }

    /// A book titled "keep" refuses to be removed.
    func willDelete() -> Bool { title != "keep" }
}

@Model
final class Chapter {
    var number: Int = 0
    @Relationship(deleteRule: .cascade) var book: Book?
    @Relationship(deleteRule: .cascade) var previous: Chapter?

    init(_ number: Int, book: Book?) {
        self.number = number
        self.book = book
    }
}

@Model
final class Review {
    var stars: Int = 0
    @Relationship(deleteRule: .deny) var book: Book?

    init(_ stars: Int, book: Book?) {
        self.stars = stars
        self.book = book
    }
}

/// Many-to-many: clubs and employees through memberships.
@Model
final class Club {
    var name: String = ""
    var members: Query<Employee> { get throws { try inverse(\Membership.club, through: \Membership.member) } }

    init(_ name: String) { self.name = name }
}

@Model
final class Membership {
    @Relationship(deleteRule: .cascade) var club: Club?
    @Relationship(deleteRule: .cascade) var member: Employee?

    init(_ club: Club, _ member: Employee) {
        self.club = club
        self.member = member
    }
}

/// A small committed company: Sales in Rome with Ada (salary 100), Research in Oslo with Alan
/// (salary 90), and the `others` given, without a department.
struct TwoDepartments {
    let sales: Department
    let research: Department

    init(committedTo store: Store, others: [Employee] = []) throws {
        sales = Department("Sales", location: Location("Rome"))
        research = Department("Research", location: Location("Oslo"))
        try store.commit(
            [Employee("Ada", salary: 100, department: sales), Employee("Alan", salary: 90, department: research)]
                + others)
    }
}
