import ArgumentParser
import Foundation
import SharkHubClient
import SharkORM
import SharkSync

/// `shark sync DB --hub URL --space NAME`: one sync of a database through a hub.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a database through a hub: pull other devices' files, push this one's (docs/hub.md).",
        discussion: """
            Examples:
              SHARK_HUB_TOKEN=$(cat laptop.token) shark sync notes.sqlite --hub https://hub.example.com \\
                --space notes --log-key-file space.key
              shark sync notes.sqlite --hub http://127.0.0.1:8470 --space notes --token-file laptop.token \\
                --log-key-env NOTES_KEY --json

            The database must have synced before (a SyncEngine opened it). The device's token \
            (from shark hub add-device) comes from --token-file, --token-env or SHARK_HUB_TOKEN; \
            the space's key, which seals every file, from --log-key-file, --log-key-env or \
            SHARK_LOG_KEY. The client keeps how far it pulled, and a file it is pushing, in a \
            state folder (DB.shark-sync unless --state-folder names one): a sync cut off goes on \
            where it stopped. Plaintext http is refused off loopback unless --plaintext-http.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("The hub's address, such as https://hub.example.com.", valueName: "url"))
    var hub: String

    @Option(help: ArgumentHelp("The space on the hub.", valueName: "name"))
    var space: String

    @Option(help: ArgumentHelp("Read the device's token from the first line of this file.", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("Read the device's token from this environment variable.", valueName: "variable"))
    var tokenEnv: String?

    @OptionGroup var logKey: LogKeyOptions

    @Option(help: ArgumentHelp("Where the client keeps its state between syncs.", valueName: "folder"))
    var stateFolder: String?

    @Flag(help: "Allow plaintext http to a host other than this machine (sends the token in clear).")
    var plaintextHTTP = false

    @Flag(help: "Then forget the tombstones of removals every active device of the space has applied.")
    var forgetTombstones = false

    @Option(
        help: ArgumentHelp(
            "Upload a snapshot (for devices joining late) once the hub accepted this many bytes of files since the "
                + "last (64 MiB unless given); 0 never.", valueName: "bytes"))
    var snapshotAfterBytes: Int64 = 64 << 20

    @Flag(help: "Print a JSON summary for scripts.")
    var json = false

    func validate() throws {
        guard snapshotAfterBytes >= 0 else { throw ValidationError("--snapshot-after-bytes is 0 or more") }
    }

    func run() async throws {
        try await reportingFailures {
            guard let address = URL(string: hub), address.host != nil else {
                throw CommandFailure(
                    "--hub \(hub) is not an address: https://host[:port]", exitCode: CommandFailure.usage)
            }
            let tokenText = try KeySource(
                file: tokenFile, variable: tokenEnv, defaultVariable: "SHARK_HUB_TOKEN", prompt: "Device token",
                confirms: false, options: "--token-file, --token-env or SHARK_HUB_TOKEN"
            ).text()
            guard let token = DeviceToken(parsing: tokenText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw CommandFailure(
                    "the device token is not one shark hub add-device printed (shk1.…)",
                    exitCode: CommandFailure.permission)
            }
            guard let key = try logKey.key() else {
                throw CommandFailure(
                    "the hub relays sealed files only: give the space's key with --log-key-file, --log-key-env or "
                        + "SHARK_LOG_KEY", exitCode: CommandFailure.usage)
            }
            let store = try database.open(writable: true)
            defer { store.close() }
            let engine = try SyncEngine(recordedIn: store)
            var options = SyncClient.Options(
                stateFolder: URL(fileURLWithPath: stateFolder ?? "\(database.path).shark-sync", isDirectory: true))
            options.allowsPlaintextHTTP = plaintextHTTP
            options.forgetsTombstones = forgetTombstones
            options.snapshotAfterBytes = snapshotAfterBytes
            if database.isPostgres && stateFolder == nil {
                throw CommandFailure(
                    "a PostgreSQL database has no folder beside it: name one with --state-folder",
                    exitCode: CommandFailure.usage)
            }
            let client = SyncClient(
                engine: engine, hub: address, space: space, token: token, key: key, options: options)
            let progress = Progress("syncing")
            let report: SyncReport
            do {
                report = try await client.sync { step in
                    switch step {
                    case .downloading(_, let received, let length):
                        progress.advance(
                            by: 0, label: "pulling \(Readable.bytes(Int(received))) of \(Readable.bytes(Int(length)))")
                    case .uploading(_, let sent, let length):
                        progress.advance(
                            by: 0, label: "pushing \(Readable.bytes(Int(sent))) of \(Readable.bytes(Int(length)))")
                    default: break
                    }
                }
            } catch {
                progress.finish()
                throw error
            }
            progress.finish()
            let vector = try await engine.versionVector()
            if json {
                Terminal.write(
                    JSONText.object([
                        ("pulled", .integer(report.filesPulled)), ("rowsApplied", .integer(report.rowsApplied)),
                        ("skipped", .integer(report.filesSkipped)),
                        ("pushed", .array(report.filesPushed.map { .integer(Int($0)) })),
                        ("bytesDownloaded", .integer(Int(report.bytesDownloaded))),
                        ("bytesUploaded", .integer(Int(report.bytesUploaded))), ("retries", .integer(report.retries)),
                        ("vector", VectorText.json(vector)),
                        ("acknowledged", VectorText.json(report.acknowledged)),
                        ("tombstonesForgotten", .integer(report.tombstonesForgotten)),
                        ("snapshotImported", report.snapshotImported.map { .string($0.uuidString) } ?? .null),
                        ("snapshotVerified", report.snapshotVerified.map { .string($0.uuidString) } ?? .null),
                        ("snapshotUploaded", report.snapshotUploaded.map { .integer(Int($0)) } ?? .null),
                    ]).rendered)
            } else {
                var line =
                    "pulled \(report.filesPulled) file(s) (\(report.rowsApplied) rows), pushed "
                    + "\(report.filesPushed.count) (\(Readable.bytes(Int(report.bytesUploaded))))"
                if forgetTombstones { line += ", forgot \(report.tombstonesForgotten) tombstone(s)" }
                if report.snapshotImported != nil { line += ", started from the space's snapshot" }
                if let number = report.snapshotUploaded { line += ", uploaded snapshot \(number)" }
                Terminal.write(line + "\n")
            }
        }
    }
}
