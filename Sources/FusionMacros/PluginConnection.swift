import Foundation
@_spi(PluginMessage) import SwiftCompilerPluginMessageHandling

/// The compiler's side of a macro plugin is its standard input and output: each message
/// is an 8-byte little-endian length, then that many bytes of JSON.
struct PluginConnection: MessageConnection {
    func sendMessage<Message: Encodable>(_ message: Message) throws {
        let body = try JSONEncoder().encode(message)
        var bytes = withUnsafeBytes(of: UInt64(body.count).littleEndian) { Array($0) }
        bytes += body
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw BrokenPipe(errno: errno)
            }
            written += count
        }
    }

    func waitForNextMessage<Message: Decodable>(_ type: Message.Type) throws -> Message? {
        guard let header = try read(8) else { return nil }
        let count = header.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }.littleEndian
        // An empty message is how the compiler says it is done with this plugin.
        guard count > 0 else { return nil }
        guard let body = try read(Int(count)) else { return nil }
        return try JSONDecoder().decode(Message.self, from: Data(body))
    }

    /// Exactly `count` bytes, or nil at the end of input (the compiler is done).
    private func read(_ count: Int) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes[done...].withUnsafeMutableBytes { Foundation.read(0, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw BrokenPipe(errno: errno)
            }
            if got == 0 { return nil }
            done += got
        }
        return bytes
    }

    struct BrokenPipe: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "the compiler's pipe failed (errno \(errno))" }
    }
}
