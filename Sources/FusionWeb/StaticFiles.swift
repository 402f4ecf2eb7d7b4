import FusionHost
import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves the files under one folder, and nothing else: the path is percent-decoded
/// and split into names; `..`, `.`, hidden names, NUL and backslashes are refused; the
/// file found is resolved with realpath and must still lie inside the folder (a
/// symbolic link leading out of it is not followed), and be a regular file.
struct StaticFiles: Sendable {
    /// The folder, resolved (no symbolic links, no trailing slash).
    let root: String

    /// Nil when the folder does not exist.
    init?(folder: String) {
        guard let resolved = Self.realPath(folder), Self.isDirectory(resolved) else { return nil }
        root = resolved
    }

    /// The file a URL path names, if it may be served.
    func file(for urlPath: Substring) -> String? {
        guard let decoded = Self.percentDecoded(urlPath) else { return nil }
        var names: [Substring] = []
        for name in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            if name.hasPrefix(".") || name.contains("\\") || name.contains("\0") { return nil }
            names.append(name)
        }
        var path = root + "/" + names.joined(separator: "/")
        if Self.isDirectory(path) { path += "/index.html" }
        guard let resolved = Self.realPath(path), resolved.hasPrefix(root + "/"), Self.isRegularFile(resolved) else { return nil }
        return resolved
    }

    /// A response for GET or HEAD of the path; nil when there is no such file.
    func response(for request: Request) -> Response? {
        guard let path = file(for: Substring(request.uri.path)), let bytes = try? FileBytes.read(path) else { return nil }
        var headers = HTTPFields()
        headers[.contentType] = Self.contentType(of: path)
        headers[.contentLength] = String(bytes.count)
        headers[.cacheControl] = "no-cache"
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func contentType(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch suffix {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "ts": return "text/plain; charset=utf-8"  // fusionkit.d.ts, for reading
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        case "wasm": return "application/wasm"  // compiled while it streams (WebAssembly.instantiateStreaming)
        case "txt", "md": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    // MARK: The file system

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT
    }

    static func isDirectory(_ path: String) -> Bool { mode(path) == S_IFDIR }
    static func isRegularFile(_ path: String) -> Bool { mode(path) == S_IFREG }

    /// %XX escapes decoded; nil for a broken escape or text that is not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: return byte - 48
        case 65...70: return byte - 55
        case 97...102: return byte - 87
        default: return nil
        }
    }
}
