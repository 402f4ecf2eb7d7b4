import FusionHost

/// The manifest a bridge serving several libraries hands out (`manifest`, `/manifest.json`):
/// one library's manifest as it is; for several, one document listing every feature of
/// each, named as a page creates it ("todo", or "Chores/counter" where two libraries have
/// a "counter") and marked with its library, so a page written for one library works.
enum ServedManifest {
    static func combining(_ manifests: [Manifest], of libraries: LibrarySet) -> JSONValue {
        var features: [JSONValue] = []
        for (manifest, library) in zip(manifests, libraries.libraries) {
            for case .object(var members) in manifest.json["features"]?.elements ?? [] {
                let name = members.first { $0.key == "name" }?.value.stringValue ?? ""
                if let index = members.firstIndex(where: { $0.key == "name" }) {
                    members[index] = JSONMember("name", .string(libraries.name(of: name, in: library)))
                }
                members.append(JSONMember("library", .string(manifest.libraryName)))
                features.append(.object(members))
            }
        }
        let first = manifests[0]
        return .object([
            JSONMember("abiVersion", .integer(Int(first.abiVersion))),
            JSONMember("library", first.json["library"] ?? .null),
            JSONMember("libraries", .array(manifests.map { $0.json["library"] ?? .null })),
            JSONMember("features", .array(features))
        ])
    }
}
