import Foundation
import SharkORM
import SharkSQLCipher
import SharkTestSupport
import Testing

@testable import SharkDriverConformance

/// Files the SQL drivers cannot open: what each says.
@Suite("Files that are not databases")
struct FileErrorTests {
    @Test("a file that is not a database", arguments: TestDriver.sql)
    func notADatabase(driver: TestDriver) throws {
        let file = TemporaryPath()
        defer { file.cleanUp() }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: file.path))
        // An encrypted file is indistinguishable from noise: SQLCipher can only say the key fails.
        if driver == .sqlcipher {
            #expect(throws: SQLCipherError.wrongKey(path: file.path)) { _ = try driver.openFile(file.path) }
        } else {
            #expect(throws: SharkError.notADatabase(path: file.path)) { _ = try driver.openFile(file.path) }
        }
    }
}

@Suite("Paths that would give every connection a private database are refused")
struct PrivateDatabasePathTests {
    @Test("\":memory:\" and \"\" are refused at open, pointing to .memory and temporary stores")
    func refused() throws {
        for path in [":memory:", "", "file::memory:", "file:shared?mode=memory&cache=shared"] {
            for driver in TestDriver.sql {
                #expect {
                    _ = try driver.openFile(path)
                } throws: { error in
                    guard case SharkError.cannotOpen(let failed, let reason) = error else { return false }
                    return failed == path && reason.contains(".memory") && reason.contains("Temporary")
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: ":memory:"))
    }
}
