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
