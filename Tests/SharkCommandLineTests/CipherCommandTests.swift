import Foundation
import SharkORM
import SharkSQLCipher
import SharkSQLite
import Testing

@Suite("shark encrypt, decrypt, rekey")
struct CipherCommandTests {
    @Test("encrypt, rekey and decrypt round-trip the rows; each step leaves its source as it was")
    func roundTrip() throws {
        let directory = try Fixtures.directory()
        let plain = try Fixtures.plainDatabase(in: directory)
        let encrypted = directory.appendingPathComponent("team.encrypted").path
        let plainBefore = try DiskState(of: plain).bytes

        let encrypt = try SharkProcess.run(
            ["encrypt", plain, "-o", encrypted], environment: ["SHARK_KEY": "first secret"])
        #expect(encrypt.status == 0, "\(encrypt.error)")
        #expect(try DiskState(of: plain).bytes == plainBefore)
        #expect(!(try Data(contentsOf: URL(fileURLWithPath: encrypted))).starts(with: Data("SQLite format 3".utf8)))

        let rekey = try SharkProcess.run(
            ["rekey", encrypted], environment: ["SHARK_KEY": "first secret", "SHARK_NEW_KEY": "second secret"])
        #expect(rekey.status == 0, "\(rekey.error)")
        let oldKey = try SharkProcess.run(["info", encrypted], environment: ["SHARK_KEY": "first secret"])
        #expect(oldKey.status == 77)
        let query = try SharkProcess.run(
            ["query", encrypted, "Member", "--json"], environment: ["SHARK_KEY": "second secret"])
        #expect(query.status == 0, "\(query.error)")
        #expect((try JSONSerialization.jsonObject(with: query.outputData) as? [Any])?.count == 3)

        let decrypted = directory.appendingPathComponent("team-again.sqlite").path
        let decrypt = try SharkProcess.run(
            ["decrypt", encrypted, "-o", decrypted], environment: ["SHARK_KEY": "second secret"])
        #expect(decrypt.status == 0, "\(decrypt.error)")
        let store = try Store(.sqlite(path: decrypted, readOnly: true))
        #expect(try store.fetchRows(of: "Member").count == 3)
        store.close()
    }

    @Test("a key never appears in the arguments, the output or a trace")
    func keysStaySecret() throws {
        let directory = try Fixtures.directory()
        let plain = try Fixtures.plainDatabase(in: directory)
        let secret = "a-very-recognizable-secret-\(UUID().uuidString)"
        let newSecret = "another-recognizable-secret-\(UUID().uuidString)"
        let keyFile = directory.appendingPathComponent("key").path
        try Data(secret.utf8).write(to: URL(fileURLWithPath: keyFile))
        let encrypted = directory.appendingPathComponent("vault").path
        let runs = [
            (["encrypt", plain, "-o", encrypted, "--key-file", keyFile], [String: String]()),
            (["info", encrypted, "--trace", "--check"], ["SHARK_KEY": secret]),
            (["rekey", encrypted, "--trace"], ["SHARK_KEY": secret, "SHARK_NEW_KEY": newSecret]),
            (["query", encrypted, "Member", "--trace"], ["SHARK_KEY": newSecret]),
        ]
        for (arguments, environment) in runs {
            let result = try SharkProcess.run(arguments, environment: environment)
            #expect(result.status == 0, "\(arguments[0]): \(result.error)")
            for key in [secret, newSecret] {
                #expect(!arguments.contains { $0.contains(key) })
                #expect(!result.output.contains(key), "\(arguments[0]) printed the key")
                #expect(!result.error.contains(key), "\(arguments[0]) traced the key")
            }
            if arguments.contains("--trace") { #expect(result.error.contains("trace: ")) }
        }
        // There is no option that takes a key on the command line.
        let refused = try SharkProcess.run(["encrypt", plain, "-o", encrypted + "2", "--key", secret])
        #expect(refused.status == 64)
        #expect(!FileManager.default.fileExists(atPath: encrypted + "2"))
    }

    @Test("a raw key of 64 hexadecimal digits")
    func rawKey() throws {
        let directory = try Fixtures.directory()
        let plain = try Fixtures.plainDatabase(in: directory)
        let encrypted = directory.appendingPathComponent("raw.encrypted").path
        let raw = String(repeating: "0123456789abcdef", count: 4)
        let encrypt = try SharkProcess.run(
            ["encrypt", plain, "-o", encrypted, "--raw-key"], environment: ["SHARK_KEY": raw])
        #expect(encrypt.status == 0, "\(encrypt.error)")
        let store = try Store(
            .sqlcipher(path: encrypted, key: .raw(Data(repeating: 0, count: 0) + rawBytes(raw)), readOnly: true))
        #expect(try store.fetchRows(of: "Team").count == 2)
        store.close()
        let short = try SharkProcess.run(["info", encrypted, "--raw-key"], environment: ["SHARK_KEY": "abcd"])
        #expect(short.status == 64)
    }
}

/// The bytes that hexadecimal digits spell.
func rawBytes(_ hex: String) -> Data {
    var bytes = Data()
    var index = hex.startIndex
    while index < hex.endIndex {
        let next = hex.index(index, offsetBy: 2)
        bytes.append(UInt8(hex[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}
