// The API's messages and the device token are SharkHubAPI's, shared with the client: an app
// that imports SharkHub has them too.
@_exported import SharkHubAPI
