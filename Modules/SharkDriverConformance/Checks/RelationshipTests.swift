import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

/// To-one relationships on every driver: stored as keys, loaded lazily, committed with the
/// objects they hold, queried by object, and failing to load without trapping.
@Suite("To-one relationships")
struct RelationshipTests {
    func commitsRelatedObjects(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let london = Location("London")
        let sales = Department("Sales", location: london)
        let ada = Employee("Ada", salary: 100, department: sales)
        log.reset()
        try store.commit(ada)
        #expect(ada.isPersisted && sales.isPersisted && london.isPersisted)
        #expect(ada.id > 0 && sales.id > 0 && london.id > 0)
        #expect(log.statements.filter { $0.hasPrefix("BEGIN") }.count == 1)
        #expect(log.writes.count == 3)
        // Changed related objects are written too; unchanged ones are not.
        london.name = "Paris"
        ada.salary = 110
        log.reset()
        try store.commit(ada)
        #expect(log.writes.count == 2)
        let back = try #require(try store.find(Employee.self, id: ada.id))
        #expect(back !== ada)
        #expect(back.department?.name == "Sales")
        #expect(back.department?.location?.name == "Paris")
        #expect(back.department?.id == sales.id)
    }

    func lazyLoading(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let sales = Department("Sales")
        try store.commit([Employee("Ada", department: sales), Employee("Alan", department: sales), Employee("Grace")])
        func selects(of entity: String) -> Int {
            log.statements.filter { $0.hasPrefix("SELECT") && $0.contains("\"\(entity)\"") }.count
        }
        log.reset()
        let people = try Employee.query(in: store).orderBy(\.name).fetch()
        #expect(selects(of: "Department") == 0)
        #expect(people[0].department?.name == "Sales")
        #expect(selects(of: "Department") == 1)
        #expect(people[0].department?.name == "Sales")  // cached: no second read
        #expect(selects(of: "Department") == 1)
        #expect(people[0].department !== people[1].department)  // each object loads its own
        #expect(people[1].department?.isFault == false)
        #expect(people[2].department == nil)
        #expect(selects(of: "Department") == 2)
    }

    func including(driver: ConformanceDriver) async throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let departments = (0..<10).map { Department("D\($0)") }
        try store.commit((0..<100).map { Employee("E\($0)", department: departments[$0 % 10]) } + [Employee("none")])
        func selects() -> [String] {
            log.statements.filter { $0.hasPrefix("SELECT") && !$0.contains("_shark_") }
        }
        log.reset()
        let people = try await Employee.query(in: store).including(\.department).fetch()
        #expect(people.count == 101)
        #expect(selects().count == 2, "\(selects())")
        #expect(people.allSatisfy { $0.department?.isFault != true })
        #expect(Set(people.compactMap { $0.department?.name }).count == 10)
        #expect(selects().count == 2)  // reading them costs nothing more
        // first() and async fetches prefetch too; a window prefetches only its own.
        log.reset()
        let first = try await Employee.query(in: store).orderBy(\.name).including(\.department).first()
        #expect(first?.department?.name == "D0")
        #expect(selects().count == 2)
        let fetched = try await Employee.query(in: store).where(\.name == "E7").including(\.department).fetch()
        #expect(fetched.first?.department?.isFault == false)
        // More keys than SQLite takes parameters: still one statement.
        let many = (0..<1_200).map { Employee("M\($0)", department: Department("X\($0)")) }
        try store.commit(many)
        log.reset()
        let all = try await Employee.query(in: store).where(.like(\.name, "M%")).including(\.department).fetch()
        #expect(all.count == 1_200 && all.allSatisfy { $0.department?.isFault == false })
        #expect(selects().count == 2)
        // Non-optional relationships, and dangling keys (which stay faults).
        try store.commit(Assignment("lead", project: Project("Apollo")))
        let assignments = try await Assignment.query(in: store).including(\.project).fetch()
        #expect(assignments.map(\.project.title) == ["Apollo"])
    }

    func missingRowsAreRemembered(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        _ = try Department.query(in: store).count()
        _ = try Employee.query(in: store).count()
        // Keys whose rows are not here (yet): written as plain rows, as a sync import could.
        try store.write { tx in
            for key in 900..<903 {
                _ = try tx.insertRow(["name": .text("E\(key)"), "department": .integer(Int64(key))], into: "Employee")
            }
        }
        func selects() -> Int { log.statements.filter { $0.hasPrefix("SELECT") && $0.contains("Department") }.count }
        log.reset()
        let people = try Employee.query(in: store).including(\.department).fetch()
        #expect(selects() == 1)
        for _ in 0..<3 { #expect(people.allSatisfy { $0.department == nil }) }
        #expect(selects() == 1, "reading a relationship found missing asks no more")
        // Without `including`: the first read asks, the next ones do not.
        log.reset()
        let one = try #require(try Employee.query(in: store).where(\.name == "E900").first())
        #expect(one.department == nil && one.department == nil)
        #expect(selects() == 1)
        // An explicit load asks again and says why.
        #expect(throws: SharkError.self) { try one.load(\.department) }
        #expect(selects() == 2)
        // The row arrives with a commit: the next read finds it.
        try store.write { tx in _ = try tx.insertRow(["id": .integer(900), "name": .text("Late")], into: "Department") }
        #expect(one.department?.name == "Late")
        #expect(people.first { $0.name == "E900" }?.department?.name == "Late")
    }

    func predicates(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let sales = Department("Sales")
        let research = Department("Research")
        try store.commit([
            Employee("Ada", department: sales), Employee("Alan", department: research), Employee("Grace"),
            Employee("Edsger", department: sales),
        ])
        func names(_ predicate: QueryPredicate<Employee>) throws -> [String] {
            try Employee.query(in: store).where(predicate).orderBy(\.name).fetch().map(\.name)
        }
        #expect(try names(\.department == sales) == ["Ada", "Edsger"])
        #expect(try names(\.department != sales) == ["Alan"])  // NULL matches neither
        #expect(try names(\.department == nil) == ["Grace"])
        #expect(try names(.isIn(\.department, [research, sales])) == ["Ada", "Alan", "Edsger"])
        #expect(try names(.isNotNil(\.department)) == ["Ada", "Alan", "Edsger"])
        #expect(try Employee.query(in: store).where("department = %@", research).count() == 1)
        #expect(try Employee.query(in: store).where(\.department == Department("unsaved")).count() == 0)
        let groups = try Employee.query(in: store).orderBy(\.name).grouped(by: \.department)
        #expect(groups[sales.id]?.map(\.name) == ["Ada", "Edsger"])
        #expect(groups[research.id]?.map(\.name) == ["Alan"])
        #expect(groups[nil]?.map(\.name) == ["Grace"])
        #expect(groups.count == 3)
    }

    func dottedPaths(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let rome = Location("Rome")
        let sales = Department("Sales", location: rome)
        let research = Department("Research", location: Location("Oslo"))
        let ada = Employee("Ada", salary: 100, department: sales)
        let alan = Employee("Alan", salary: 90, department: research)
        let grace = Employee("Grace", salary: 120)
        let edsger = Employee("Edsger", salary: 80, department: sales)
        edsger.mentor = ada
        alan.mentor = ada
        try store.commit([ada, alan, grace, edsger])
        try store.write { tx in
            _ = try tx.insertRow(["name": .text("Dangling"), "department": .integer(999)], into: "Employee")
        }
        func names(_ predicate: String, _ arguments: Any...) throws -> [String] {
            try Employee.query(in: store).where(predicate, arguments: arguments).orderBy(\.name).fetch().map(\.name)
        }
        #expect(try names("department.name = 'Sales'") == ["Ada", "Edsger"])
        #expect(try names("department.name = %@ OR salary > 110", "Research") == ["Alan", "Grace"])
        #expect(try names("department.location.name = 'Rome'") == ["Ada", "Edsger"])
        #expect(try names("lower(department.location.name) LIKE 'o%'") == ["Alan"])
        #expect(try names("mentor.name = 'Ada'") == ["Alan", "Edsger"])  // a path from a model to itself
        #expect(try names("mentor.department.name = 'Sales'") == ["Alan", "Edsger"])
        // The typed forms of the same paths.
        func typed(_ predicate: QueryPredicate<Employee>) throws -> [String] {
            try Employee.query(in: store).where(predicate).orderBy(\.name).fetch().map(\.name)
        }
        #expect(try typed(.path(\.department, \.name) == "Sales") == ["Ada", "Edsger"])
        #expect(try typed(.path(\.department, .path(\.location, \.name)) == "Rome") == ["Ada", "Edsger"])
        #expect(try typed(.path(\.mentor, \.salary) > 90 && \.salary < 100) == ["Alan", "Edsger"])
        #expect(try typed(.path(\.department, .lower(\.name)) == "research") == ["Alan"])
        #expect(try typed(.path(\.mentor, \.salary) > \.salary) == ["Alan", "Edsger"])
        #expect(try Employee.query(in: store).sum(.path(\.department, \.id)) == 2 * sales.id + research.id)
        // Key paths through the relationships themselves, optional chaining included.
        #expect(try typed(\.department?.name == "Sales") == ["Ada", "Edsger"])
        #expect(try typed(\.department?.location?.name == "Rome") == ["Ada", "Edsger"])
        #expect(try typed(\.mentor?.department?.name == "Sales") == ["Alan", "Edsger"])
        #expect(try typed(\.mentor?.salary == 100) == ["Alan", "Edsger"])
        #expect(try typed(\.department?.name == nil) == ["Dangling", "Grace"])
        #expect(try typed(.lower(\.department?.name) == "research") == ["Alan"])
        let byDepartment = try Employee.query(in: store).orderByDescending(\.department?.name).orderBy(\.name)
        #expect(try byDepartment.fetch().map(\.name) == ["Ada", "Edsger", "Alan", "Dangling", "Grace"])
        #expect(try Employee.query(in: store).where(\.department?.location?.name == "Rome").sum(\.salary) == 180)
        #expect(try Employee.query(in: store).max(\.mentor?.salary) == 100)
        let website = Project("Website")
        try store.commit([Assignment("design", project: website), Assignment("build", project: Project("App"))])
        #expect(try Assignment.query(in: store).where(\.project.title == "Website").fetch().map(\.note) == ["design"])
        let unrelated = try Employee.query(in: store).where(\.name.count == 3)
        #expect(throws: SharkError.self) { try unrelated.fetch() }
        // No relationship, or a dangling one, reads as NULL, as a LEFT JOIN gives.
        #expect(try names("department.name IS NULL") == ["Dangling", "Grace"])
        #expect(try names("department.name != 'Sales'") == ["Alan"])
        #expect(try names("department.id = %@", sales.id) == ["Ada", "Edsger"])
        #expect(try names("department = %@", 999) == ["Dangling"])
        // Orderings, counts and aggregates over paths.
        let ordered = try Employee.query(in: store).orderBy("department.name DESC, name").fetch().map(\.name)
        #expect(ordered == ["Ada", "Edsger", "Alan", "Dangling", "Grace"])
        #expect(try Employee.query(in: store).where("department.location.name = 'Rome'").sum(\.salary) == 180)
        let parser = PredicateParser(schema: Employee.schema) { try? store.recordedSchema(of: $0) }
        let longest = try parser.ordering("length(department.name)")[0].expression
        #expect(try Employee.query(in: store).aggregate(.maximum, of: longest) == .integer(8))
        // Paths inside subqueries and with prefetching.
        let staffed = try Department.query(in: store).where(
            .isReferenced(by: Employee.query(in: store).where("mentor.name = 'Ada'"), through: \.department))
        #expect(try staffed.orderBy(\.name).fetch().map(\.name) == ["Research", "Sales"])
        let prefetched = try Employee.query(in: store).where("department.name = 'Sales'").including(\.department)
            .fetch()
        #expect(prefetched.allSatisfy { $0.department?.isFault == false })
        // On a store that has never seen the related models, paths still resolve and run.
        let fresh = try driver.makeStore()
        defer { fresh.close() }
        #expect(try Employee.query(in: fresh).where("department.location.name = 'Rome'").count() == 0)
        #expect(try Employee.query(in: fresh).orderBy("mentor.name").including(\.department).fetch().isEmpty)
        // Unknown steps are positioned errors.
        func isMalformed(_ error: any Error) -> Bool {
            if case SharkError.malformedPredicate = error { return true }
            return false
        }
        let employees = try Employee.query(in: store)
        #expect(performing: { try employees.where("department.nope = 1").fetch() }, throws: isMalformed)
        #expect(performing: { try employees.where("name.first = 'A'").fetch() }, throws: isMalformed)
        #expect(performing: { try employees.orderBy("department.").fetch() }, throws: isMalformed)
    }

    func joins(driver: ConformanceDriver) throws {
        let log = StatementLog()
        let store = try driver.makeStore(log: log)
        defer { store.close() }
        let sales = Department("Sales")
        try store.commit([Employee("Ada", department: sales), Employee("Grace"), Employee("Alan", department: sales)])
        try store.write { tx in
            _ = try tx.insertRow(["name": .text("Lost"), "department": .integer(999)], into: "Employee")
        }
        log.reset()
        let rows = try Employee.query(in: store).orderBy(\.name).joined(\.department).fetch()
        #expect(rows.map(\.object.name) == ["Ada", "Alan", "Grace", "Lost"])
        #expect(rows.map { $0.joined?.name } == ["Sales", "Sales", nil, nil])
        #expect(log.statements.filter { $0.hasPrefix("SELECT") && !$0.contains("_shark_") }.count == 2)
        // On any pair of properties: one row per match, results without one kept once.
        try store.commit([Location("Sales"), Location("Sales"), Location("Oslo")])
        let byName = try Department.query(in: store).joined(Location.self, on: \.name, equals: \.name).fetch()
        #expect(byName.count == 2)
        #expect(byName.allSatisfy { $0.object.name == "Sales" && $0.joined?.name == "Sales" })
        #expect(byName[0].joined!.id < byName[1].joined!.id)
        let none = try Department.query(in: store).where(\.name == "nope").joined(\.location).fetch()
        #expect(none.isEmpty)
        #expect(throws: SharkError.self) {
            try Employee.query(in: store).where("nope = 1").joined(\.department).fetch()
        }
    }

    func cycles(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let ada = Employee("Ada")
        let alan = Employee("Alan")
        ada.mentor = alan
        alan.mentor = ada
        try store.commit(ada)
        #expect(ada.isPersisted && alan.isPersisted && !ada.hasChanges && !alan.hasChanges)
        let adaBack = try #require(try store.find(Employee.self, id: ada.id))
        #expect(adaBack.mentor?.name == "Alan")
        #expect(adaBack.mentor?.mentor?.name == "Ada")
        #expect(adaBack.mentor?.mentor?.id == ada.id)
        // A self-reference is a cycle of one.
        let grace = Employee("Grace")
        grace.mentor = grace
        try store.commit(grace)
        #expect(try store.find(Employee.self, id: grace.id)?.mentor?.id == grace.id)
        // A long chain of new objects commits without deep recursion.
        var head = Employee("0")
        for index in 1..<2_000 {
            let next = Employee("\(index)")
            next.mentor = head
            head = next
        }
        try store.commit(head)
        #expect(try Employee.query(in: store).count() == 2_003)
    }

    func danglingKeys(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let missing = UUID.v7()
        try store.commit(Player("p0", team: Team("placeholder")))  // the tables exist
        try store.write { tx in _ = try tx.insertRow(["id": .text("p1"), "team": missing.columnValue], into: "Player") }
        let player = try #require(try store.find(Player.self, id: "p1"))
        #expect(player.team == nil)
        #expect {
            try player.load(\.team)
        } throws: { error in
            guard case SharkError.notFound(let entity, _) = error else { return false }
            return entity == "Team"
        }
        // The key survives a commit of other changes, and the object is found once it arrives.
        try store.commit(player)
        let late = Team("Late")
        late.id = missing
        try store.commit(late)
        let again = try #require(try store.find(Player.self, id: "p1"))
        #expect(again.team?.name == "Late")
        #expect(try again.load(\.team)?.name == "Late")
        // The same object retried after the team arrived loads too.
        #expect(try player.load(\.team)?.name == "Late")
        #expect(player.team?.name == "Late")
    }

    func closedStore(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        let sales = Department("Sales")
        try store.commit(Employee("Ada", department: sales))
        let ada = try #require(try Employee.query(in: store).first())
        store.close()
        #expect(ada.department == nil)
        #expect(throws: SharkError.closed) { try ada.load(\.department) }
    }

    func asyncLoad(driver: ConformanceDriver) async throws {
        let store = try driver.makeStore()
        defer { store.close() }
        try store.commit(Employee("Ada", department: Department("Sales", location: Location("Rome"))))
        let ada = try #require(try await Employee.query(in: store).first())
        let department = try #require(try await ada.load(\.department))
        #expect(!department.isFault)
        #expect(department.name == "Sales")
        let location = try await department.load(\.location)
        #expect(location?.name == "Rome")
        #expect(try await ada.load(\.mentor) == nil)
    }

    func nonOptional(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let apollo = Project("Apollo")
        let assignment = Assignment("lead", project: apollo)
        try store.commit(assignment)
        #expect(apollo.isPersisted)
        let back = try #require(try store.find(Assignment.self, id: assignment.id))
        #expect(back.project.title == "Apollo")
        #expect(!back.project.isFault)
        // A dangling key: the property gives the unloaded placeholder, load says why.
        try store.write { tx in
            _ = try tx.insertRow(["note": .text("orphan"), "project": .integer(999)], into: "Assignment")
        }
        let orphan = try #require(try Assignment.query(in: store).where(\.note == "orphan").first())
        #expect(orphan.project.isFault)
        #expect(orphan.project.id == 999)
        #expect(orphan.project.title == "untitled")
        #expect(throws: SharkError.notFound(entity: "Project", key: "999")) { try orphan.load(\.project) }
    }

    func restoreKeepsObjects(driver: ConformanceDriver) throws {
        let store = try driver.makeStore()
        defer { store.close() }
        let sales = Department("Sales")
        let ada = Employee("Ada", department: sales)
        try store.commit(ada)
        ada.salary = 5
        try store.refresh(ada)
        #expect(ada.department === sales)
        let research = Department("Research")
        #expect(throws: SharkError.self) {
            try store.transaction {
                ada.department = research
                try store.commit(ada)
                throw SharkError.invalidQuery("stop")
            }
        }
        // A rollback reloads a stored object from its row, as for any property; the new
        // department is new again.
        #expect(!research.isPersisted && research.id == 0)
        #expect(try Department.query(in: store).count() == 1)
        #expect(ada.department?.id == sales.id)
        #expect(!ada.hasChanges)
    }

}
