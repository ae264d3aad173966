import Foundation
import SharkORM
import SharkSQLite
import Testing

@Suite("shark query")
struct QueryCommandTests {
    @Test("a table of rows, values shown by logical type, in key order")
    func table() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let before = try DiskState(of: path)
        let result = try SharkProcess.run(["query", path, "Member"])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("id ") == true)
        #expect(lines.count == 2 + 3 + 1)
        #expect(lines[2].hasPrefix(Fixtures.ada.uuidString))
        #expect(lines[2].contains("2023-11-14T22:13:20.000Z"))
        #expect(lines[2].contains("1234.5"))
        #expect(lines[2].contains("true"))
        #expect(lines[2].hasSuffix("research"))
        #expect(lines.last == "(3 rows)")
        #expect(try DiskState(of: path) == before, "query must not write")
    }

    @Test("--where with arguments typed by their properties, --order, --limit, json")
    func filtered() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let result = try SharkProcess.run([
            "query", path, "member", "--where", "age >= ? AND joined < ? AND active = ?", "19", "2023-11-16", "true",
            "--order", "name DESC", "--limit", "5", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: result.outputData) as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["Cy", "Ada"])
        #expect(rows.first?["id"] as? String == Fixtures.cy.uuidString)
        #expect(rows.first?["age"] as? Int == 19)
        #expect(rows.first?["active"] as? Bool == true)
        #expect(rows.last?["salary"] as? String == "1234.5")

        let byKey = try SharkProcess.run([
            "query", path, "Member", "--where", "id = ?", Fixtures.bob.uuidString, "--json",
        ])
        #expect(byKey.status == 0, "\(byKey.error)")
        let bob = try #require(try JSONSerialization.jsonObject(with: byKey.outputData) as? [[String: Any]])
        #expect(bob.count == 1)
        #expect(bob.first?["age"] is NSNull)

        let path2 = try SharkProcess.run(["query", path, "Member", "--where", "team.title = ?", "Sales", "--json"])
        #expect(path2.status == 0, "\(path2.error)")
        let sales = try #require(try JSONSerialization.jsonObject(with: path2.outputData) as? [[String: Any]])
        #expect(sales.map { $0["id"] as? String } == [Fixtures.bob.uuidString])

        let negative = try SharkProcess.run(["query", path, "Member", "--where", "age > ?", "--json", "--", "-5"])
        #expect(negative.status == 0, "\(negative.error)")
        #expect((try JSONSerialization.jsonObject(with: negative.outputData) as? [Any])?.count == 2)
    }

    @Test("csv quotes what needs quoting; NULL is an empty field")
    func csv() throws {
        let directory = try Fixtures.directory()
        let path = try Fixtures.plainDatabase(in: directory)
        let result = try SharkProcess.run([
            "query", path, "Member", "--where", "name LIKE ?", "Bob%", "--format", "csv",
        ])
        #expect(result.status == 0, "\(result.error)")
        let lines = result.output.components(separatedBy: "\r\n")
        #expect(lines.first == "id,name,age,joined,salary,active,team")
        #expect(lines.dropFirst().first?.hasPrefix(Fixtures.bob.uuidString + ",\"Bob, \"\"the builder\"\"\",,") == true)
    }

    @Test("rows go out a window at a time: every format whole, in order, over several windows")
    func manyWindows() throws {
        let directory = try Fixtures.directory()
        let path = directory.appendingPathComponent("many.sqlite").path
        let store = try Store(.sqlite(path: path))
        let joined = Date(timeIntervalSince1970: 1_700_000_000)
        let members = (0..<2_345).map { index in
            Member(
                id: UUID(), name: index == 7 ? String(repeating: "w", count: 40) : "m\(index)", age: index % 90,
                joined: joined, salary: Decimal(index), active: true)
        }
        try store.commit(members)
        store.close()
        let ordered = members.sorted { ($0.age ?? 0, $0.id.uuidString) < ($1.age ?? 0, $1.id.uuidString) }

        let json = try SharkProcess.run(["query", path, "Member", "--order", "age", "--json"])
        #expect(json.status == 0, "\(json.error)")
        let rows = try #require(try JSONSerialization.jsonObject(with: json.outputData) as? [[String: Any]])
        #expect(rows.count == 2_345)
        #expect(rows.map { $0["name"] as? String } == ordered.map(\.name))

        let csv = try SharkProcess.run(["query", path, "Member", "--order", "age", "--format", "csv"])
        #expect(csv.status == 0, "\(csv.error)")
        let lines = csv.output.components(separatedBy: "\r\n")
        #expect(lines.count == 1 + 2_345 + 1 && lines.last == "")
        #expect(lines.first == "id,name,age,joined,salary,active,team")
        #expect(lines[1...2_345].map { $0.split(separator: ",")[1] } == ordered.map { Substring($0.name) })

        let table = try SharkProcess.run(["query", path, "Member", "--where", "age < ?", "45", "--order", "age"])
        #expect(table.status == 0, "\(table.error)")
        let tableLines = table.output.split(separator: "\n")
        let expected = ordered.filter { ($0.age ?? 0) < 45 }
        #expect(tableLines.count == 2 + expected.count + 1)
        #expect(tableLines.filter { $0.hasPrefix("id ") }.count == 1)
        #expect(tableLines.last == "(\(expected.count) rows)")
        #expect(
            tableLines.dropFirst(2).dropLast().map { $0.split(separator: " ")[0] }
                == expected.map { Substring($0.id.uuidString) })

        let empty = try SharkProcess.run(["query", path, "Member", "--where", "age > ?", "1000", "--json"])
        #expect(empty.output == "[]\n")
    }
}
