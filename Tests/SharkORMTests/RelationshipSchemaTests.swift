import Foundation
@_spi(SharkDriver) import SharkORM
import Testing

@testable import SharkDriverConformance

/// What a model's relationships record in its schema, whatever the driver.
@Suite("Relationship schemas")
struct RelationshipSchemaTests {
    @Test("the schema records relationships and indexes their columns")
    func schema() throws {
        let schema = try Employee.validatedSchema()
        let department = try #require(schema.columns.first { $0.name == "department" })
        #expect(department.relationship == RelationshipSchema(target: "Department", deleteRule: .nullify))
        #expect(department.type == .integer && department.isNullable)
        #expect(schema.indexes.contains { $0.columns == ["department"] })
        #expect(schema.indexes.contains { $0.columns == ["mentor"] })
        let project = try #require(try Assignment.validatedSchema().columns.first { $0.name == "project" })
        #expect(project.relationship == RelationshipSchema(target: "Project", deleteRule: .deny))
        #expect(!project.isNullable)
        let team = try #require(Player.schema.columns.first { $0.name == "team" })
        #expect(team.type == Team.schema.key.type && team.logicalType == .uuid)
    }
}
