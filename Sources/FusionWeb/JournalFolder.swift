#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bridge's folder of crash journals (`fusion serve --journal DIR`): a folder per
/// session, named by its id, holding a journal per instance (`1.journal`, `2.journal`,
/// … in creation order).
enum JournalFolder {
    /// The names in a folder, without "." and ".."; none when it cannot be read.
    static func files(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
