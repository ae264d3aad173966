import Foundation

/// A digest computed by reading the store as a full export does, a page of rows at a time,
/// without writing anything: memory stays a page whatever the store's size, and the time
/// grows with the number of rows (about what a full export spends reading them).
final class DigestScan: ExportedRowSink {
    private(set) var sum = DigestSum()
    private(set) var rowCount = 0
    private var digester: (name: String, digester: RowDigester)?

    func take(_ rows: [RowChange], of entity: ChangeLogEntity) throws(SyncError) {
        if digester?.name != entity.name { digester = (entity.name, RowDigester(entity: entity)) }
        rowCount += digester!.digester.add(rows, to: &sum)
    }
}
