/// The version of SharkORM this program was built with, as the CHANGELOG's top entry names it
/// and `shark --version` prints it. This file is the one place the version is stated;
/// `scripts/check-release.sh` holds the CHANGELOG to it.
///
/// ```swift
/// print("built with SharkORM \(sharkORMVersion)")   // built with SharkORM 0.10.0
/// ```
public let sharkORMVersion = "0.10.0"
