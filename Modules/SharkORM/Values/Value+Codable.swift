import Foundation

extension Value: Codable {
    private enum CodingKeys: String, CodingKey { case null, integer, real, text, blob }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let v = try container.decodeIfPresent(Int64.self, forKey: .integer) {
            self = .integer(v)
        } else if let v = try container.decodeIfPresent(String.self, forKey: .real) {
            // Reals travel as text so that infinities survive JSON.
            self = .real(Double(v) ?? .nan)
        } else if let v = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(v)
        } else if let v = try container.decodeIfPresent(Data.self, forKey: .blob) {
            self = .blob(v)
        } else {
            self = .null
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .null: try container.encode(true, forKey: .null)
        case .integer(let v): try container.encode(v, forKey: .integer)
        case .real(let v): try container.encode(String(v), forKey: .real)
        case .text(let v): try container.encode(v, forKey: .text)
        case .blob(let v): try container.encode(v, forKey: .blob)
        }
    }
}
