import Foundation

/// Where an ``EntityExport`` hands the rows it reads: a change-log file being written, or a
/// digest being computed (``DigestScan``), which reads the store exactly as a full export does.
protocol ExportedRowSink: AnyObject {
    /// Takes a page of one entity's rows; the rows of one entity come together.
    func take(_ rows: [RowChange], of entity: ChangeLogEntity) throws(SyncError)
}

extension ChangeLogWriter: ExportedRowSink {
    func take(_ rows: [RowChange], of entity: ChangeLogEntity) throws(SyncError) { try append(rows, of: entity) }
}
