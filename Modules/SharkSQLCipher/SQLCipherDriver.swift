import Foundation
@_spi(SharkDriver) import SharkORM
import SharkSQLiteCore

/// The driver behind `.sqlcipher` stores: the shared SQL driver over the isolated SQLCipher
/// library, plus what it needs to rekey.
package final class SQLCipherDriver: IntegrityChecking, @unchecked Sendable {
    package var name: String { "sqlcipher" }
    let sql: SQLiteStoreDriver
    let keying: CipherKeying

    init(_ sql: SQLiteStoreDriver, keying: CipherKeying) {
        self.sql = sql
        self.keying = keying
    }

    package var writer: any DriverConnection { sql.writer }
    package func read<T>(_ body: (any DriverConnection) throws -> T) throws -> T { try sql.read(body) }
    package func close() { sql.close() }
    package var isReadOnly: Bool { sql.isReadOnly }
    package var readsByKeyOnIdleWriter: Bool { sql.readsByKeyOnIdleWriter }
    package func checkIntegrity() throws -> [String] { try sql.checkIntegrity() }
}
