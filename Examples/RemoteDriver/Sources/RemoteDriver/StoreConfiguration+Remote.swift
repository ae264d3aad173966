@_spi(SharkDriver) import SharkORM

extension StoreConfiguration {
    /// A store whose data lives behind ``RemoteServer``, every call awaited.
    ///
    /// ```swift
    /// import RemoteDriver
    /// import SharkORM
    ///
    /// let store = try Store(.remote)
    /// print(store.driverName)   // "remote"
    /// ```
    public static var remote: StoreConfiguration {
        StoreConfiguration(driverName: "remote") { tracer in RemoteStoreDriver(tracer: tracer) }
    }
}
