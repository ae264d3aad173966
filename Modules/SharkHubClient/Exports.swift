// The API's messages and the device token are SharkHubAPI's: an app that imports the client
// has them too (it parses its token with `DeviceToken(parsing:)`).
@_exported import SharkHubAPI
