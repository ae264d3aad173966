import Foundation
import Hummingbird
import NIOCore
import NIOFoundationCompat
import SharkHubAPI
import SharkORM
import SharkSync

extension HubServer {
    /// The largest verification body: a vector of about 20,000 sites and a tag.
    static let verificationLimit = 1 << 20

    /// `PUT` and `GET /v1/spaces/{space}/snapshots/{file}`, and
    /// `PUT /v1/spaces/{space}/snapshots/{file}/verification` (docs/hub.md, "Joining late").
    func addSnapshotRoutes(to router: Router<HubRequestContext>) {
        let (server, hub) = (self, self.hub)
        router.put("v1/spaces/:space/snapshots/:file") { request, context -> Response in
            try await server.receiveChunk(request, context, snapshot: true)
        }
        router.get("v1/spaces/:space/snapshots/:file") { request, context -> Response in
            let space = try context.parameters.require("space")
            try await server.authenticate(request, space).requireActive()
            let snapshot = try await hub.acceptedSnapshot(try Self.fileID(context), in: space)
            return server.stream(row: snapshot.row, length: snapshot.length)
        }
        router.put("v1/spaces/:space/snapshots/:file/verification") { request, context -> Response in
            let space = try context.parameters.require("space")
            let device = try await server.authenticate(request, space)
            try device.requireActive()
            let fileID = try Self.fileID(context)
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: Self.verificationLimit)
            } catch is NIOTooManyBytesError {
                throw HubError(.tooLarge, "a verification holds at most \(Self.verificationLimit) bytes")
            }
            guard let message = try? JSONDecoder().decode(SnapshotVerification.self, from: Data(buffer: body)),
                let vector = VectorText.vector(entries: message.vector), message.tag.count == 64,
                let tag = bytes(fromHexadecimal: message.tag)
            else {
                throw HubError(
                    .badRequest, "a verification is {\"vector\": {site UUID: sequence, …}, \"tag\": 64 hex digits}")
            }
            let info = try await hub.verifySnapshot(fileID, vector: vector, tag: Data(tag), from: device)
            context.logger.info(
                "snapshot verified", metadata: ["space": "\(space)", "device": "\(device.id)", "file": "\(fileID)"])
            return try Self.json(info, status: .ok)
        }
    }
}
