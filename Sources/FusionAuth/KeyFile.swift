import Foundation
import FusionJSON
import JWTKit

/// What `--jwt-key FILE` holds, told apart by its text: a JSON Web Key Set (`{"keys": …}`),
/// a PEM public key (RSA: RS256; EC: ES256, ES384 or ES512 by its curve), or else an HMAC
/// secret (HS256), its bytes as they are but for a final newline.
struct KeyFile {
    enum Content {
        case jwks(String, algorithms: Set<String>, kids: Set<String>)
        case pem(String)
        case secret([UInt8])
    }

    let content: Content

    /// The key ids a token must name (`kid`), for a key set; nil: a single key, named or not.
    var kids: Set<String>? {
        if case .jwks(_, _, let kids) = content { return kids }
        return nil
    }

    var kind: String {
        switch content {
        case .jwks: "a JSON Web Key Set"
        case .pem: "a PEM public key"
        case .secret: "an HMAC secret"
        }
    }

    init(path: String) throws(KeyFileError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError("cannot read the key file \(path)")
        }
        var bytes = [UInt8](data)
        let text = String(decoding: bytes, as: UTF8.self)
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("{") {
            let (algorithms, kids) = try Self.jwksKeys(trimmed, path: path)
            content = .jwks(trimmed, algorithms: algorithms, kids: kids)
        } else if trimmed.hasPrefix("-----BEGIN") {
            if trimmed.contains("PRIVATE KEY") {
                throw KeyFileError("\(path) holds a private key: give the bridge the public key only (it verifies, it never signs)")
            }
            content = .pem(trimmed)
        } else {
            while bytes.last == 10 || bytes.last == 13 { bytes.removeLast() }
            // RFC 7518 §3.2: an HS256 key at least as long as the hash.
            guard bytes.count >= 32 else {
                throw KeyFileError(
                    "the HMAC secret in \(path) is \(bytes.count) bytes; HS256 needs at least 32 (a shorter one can be guessed)")
            }
            content = .secret(bytes)
        }
    }

    /// Adds the keys; returns the algorithms they accept.
    func add(to keys: JWTKeyCollection) async throws(KeyFileError) -> Set<String> {
        switch content {
        case .secret(let bytes):
            await keys.add(hmac: HMACKey(from: bytes), digestAlgorithm: .sha256)
            return ["HS256"]
        case .jwks(let json, let algorithms, _):
            do { try await keys.add(jwksJSON: json) } catch { throw KeyFileError("the key set is not usable: \(error)") }
            return algorithms
        case .pem(let pem):
            if let key = try? Insecure.RSA.PublicKey(pem: pem) {
                await keys.add(rsa: key, digestAlgorithm: .sha256)
                return ["RS256"]
            }
            if let key = try? ES256PublicKey(pem: pem) {
                await keys.add(ecdsa: key)
                return ["ES256"]
            }
            if let key = try? ES384PublicKey(pem: pem) {
                await keys.add(ecdsa: key)
                return ["ES384"]
            }
            if let key = try? ES512PublicKey(pem: pem) {
                await keys.add(ecdsa: key)
                return ["ES512"]
            }
            throw KeyFileError("the PEM key is not an RSA or EC (P-256, P-384, P-521) public key")
        }
    }

    /// Each key's `alg`; a key must name it (RFC 7517 makes it optional, but a key that
    /// may be used with any algorithm is how algorithm confusion starts).
    private static func jwksKeys(_ json: String, path: String) throws(KeyFileError) -> (algorithms: Set<String>, kids: Set<String>) {
        guard let set = try? JSONParser.parse(json), let keys = set["keys"]?.elements, !keys.isEmpty else {
            throw KeyFileError("\(path) is not a JSON Web Key Set: no \"keys\"")
        }
        var algorithms: Set<String> = []
        var kids: Set<String> = []
        for key in keys {
            guard let alg = key["alg"]?.stringValue, alg != "none" else {
                throw KeyFileError("every key of \(path) must name its \"alg\" (RS256, ES256, …)")
            }
            guard let kid = key["kid"]?.stringValue else {
                throw KeyFileError("every key of \(path) must have a \"kid\": a token names its key by it")
            }
            kids.insert(kid)
            if key["d"] != nil || key["k"] != nil && alg.hasPrefix("HS") == false {
                throw KeyFileError("\(path) holds a private key: give the bridge the public keys only")
            }
            algorithms.insert(alg)
        }
        return (algorithms, kids)
    }
}

/// A key file that cannot be used, in words.
public struct KeyFileError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
