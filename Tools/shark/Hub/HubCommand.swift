import ArgumentParser
import Foundation
import SharkHub
import SharkORM

/// `shark hub …`: the sync hub's spaces and device tokens, in its database.
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "Manage a sync hub's spaces and device tokens (see shark serve).",
        discussion: """
            Examples:
              shark hub create-space hub.sqlite notes --lineage com.example.notes
              shark hub add-device hub.sqlite notes "Ada's laptop"
              shark hub devices hub.sqlite notes
              shark hub revoke-device hub.sqlite 6f1c…

            A device's token is printed once, by add-device: the hub keeps only its SHA-256.
            """,
        subcommands: [CreateSpace.self, AddDevice.self, RevokeDevice.self, ListDevices.self])

    struct CreateSpace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-space", abstract: "Create a space: one app database, one sync lineage.")

        @OptionGroup var database: HubDatabaseOptions
        @Argument(help: "The space's name (letters, digits, - and _).") var space: String
        @Option(help: "The sync lineage of the app's database (SyncEngine's lineage).") var lineage: String
        @Option(help: "How many bytes the space may hold (10 GiB unless given).") var quotaBytes: Int64?

        func run() async throws {
            try await reportingFailures {
                let hub = try await database.open()
                defer { hub.store.close() }
                try await hub.createSpace(space, lineage: lineage, quotaBytes: quotaBytes)
                Terminal.write("created space \(space) (lineage \(lineage))\n")
            }
        }
    }

    struct AddDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add-device", abstract: "Add a device to a space and print its token, once.")

        @OptionGroup var database: HubDatabaseOptions
        @Argument(help: "The space.") var space: String
        @Argument(help: "A name for the device, for people.") var name: String
        @Option(help: "The sync site the device uploads as, when known (else its first upload binds it).")
        var site: String?

        func run() async throws {
            try await reportingFailures {
                var siteID: UUID?
                if let site {
                    guard let parsed = UUID(uuidString: site) else {
                        throw CommandFailure("--site takes a UUID, not \(site)", exitCode: CommandFailure.usage)
                    }
                    siteID = parsed
                }
                let hub = try await database.open()
                defer { hub.store.close() }
                let token = try await hub.addDevice(to: space, name: name, site: siteID)
                // The token alone on standard output, for scripts; what it is on standard error.
                Terminal.writeError("device \(token.device) added to \(space); its token (shown once):")
                Terminal.write(token.bearerValue + "\n")
            }
        }
    }

    struct RevokeDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-device", abstract: "Revoke a device's token, at once on every hub process.")

        @OptionGroup var database: HubDatabaseOptions
        @Argument(help: "The device's id (the second part of its token).") var device: String

        func run() async throws {
            try await reportingFailures {
                guard let id = UUID(uuidString: device) else {
                    throw CommandFailure("a device is named by its UUID, not \(device)", exitCode: CommandFailure.usage)
                }
                let hub = try await database.open()
                defer { hub.store.close() }
                try await hub.revokeDevice(id)
                Terminal.write("revoked device \(id)\n")
            }
        }
    }

    struct ListDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List a space's devices (never their tokens).")

        @OptionGroup var database: HubDatabaseOptions
        @Argument(help: "The space.") var space: String
        @Option(help: "Days without a sync after which a device is stale, as the hub serves it (90).")
        var staleAfterDays: Int64 = 90

        func run() async throws {
            try await reportingFailures {
                var limits = HubLimits()
                limits.staleDeviceAge = try ServeSettings.staleDeviceAge(days: staleAfterDays)
                let hub = try await database.open(limits: limits)
                defer { hub.store.close() }
                var table = TextTable(headers: ["device", "name", "site", "state", "last sync"])
                for device in try await hub.devices(in: space) {
                    table.append(
                        [
                            device.id.uuidString.lowercased(), device.name, device.site?.uuidString ?? "-",
                            device.isRevoked
                                ? "revoked" : device.isStale ? "stale" : device.isCounted ? "active" : "not counted",
                            device.lastSync.map { $0.formatted(.iso8601) } ?? "never",
                        ].map { (text: $0, isNumber: false) })
                }
                Terminal.write(table.rendered)
            }
        }
    }
}
