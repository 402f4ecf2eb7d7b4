/// The languages `fusion types` writes.
public enum TypesLanguage: String, Sendable, CaseIterable {
    case typescript = "ts"
    case python
    case java
}

/// The files generated for one library, by path relative to the output folder:
/// `fusion-examples.d.ts` for TypeScript, the package `fusion_examples/` (its
/// `__init__.py` and the PEP 561 marker `py.typed`) for Python, `fusion_examples/FusionExamples.java`
/// for Java.
public struct GeneratedFiles: Sendable, Equatable {
    public var files: [(path: String, text: String)]

    public static func == (a: Self, b: Self) -> Bool {
        a.files.map(\.path) == b.files.map(\.path) && a.files.map(\.text) == b.files.map(\.text)
    }

    public init(_ types: LibraryTypes, language: TypesLanguage, command: String) {
        switch language {
        case .typescript:
            files = [("\(Self.kebab(types.libraryName)).d.ts", TypeScriptWriter.write(types, generator: command))]
        case .python:
            let module = Self.snake(types.libraryName)
            files = [
                ("\(module)/__init__.py", PythonWriter.write(types, generator: command, module: module)),
                ("\(module)/py.typed", "")
            ]
        case .java:
            // One file, every type nested in the library's class: package fusion_examples, class FusionExamples.
            let package = Self.snake(types.libraryName)
            let className = JavaWriter.className(types.libraryName)
            files = [("\(package)/\(className).java", JavaWriter.write(types, generator: command, package: package, className: className))]
        }
    }

    /// "FusionExamples" → "fusion-examples".
    public static func kebab(_ name: String) -> String { words(name).joined(separator: "-") }

    /// "FusionExamples" → "fusion_examples".
    public static func snake(_ name: String) -> String {
        let joined = words(name).joined(separator: "_")
        return joined.first?.isNumber == true ? "_" + joined : joined
    }

    /// The words of a name written in camel case, with "-", "_", "." or spaces: lowercased.
    private static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            if !(character.isLetter || character.isNumber) {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else if character.isUppercase, let previous, previous.isLowercase || previous.isNumber, !current.isEmpty {
                words.append(current)
                current = String(character)
            } else {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }
    }
}

/// How a generated file differs from the one in a folder, for `fusion types --check`.
public enum Drift: Sendable, Equatable, CustomStringConvertible {
    case missing(path: String)
    /// The first line that differs, as the library would write it and as the file has it.
    case differs(path: String, line: Int, expected: String, found: String)

    public static func compare(expected: String, found: String, path: String) -> Drift? {
        if expected == found { return nil }
        let wanted = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let have = found.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(wanted.count, have.count) {
            let a = index < wanted.count ? String(wanted[index]) : "(end of file)"
            let b = index < have.count ? String(have[index]) : "(end of file)"
            if a != b { return .differs(path: path, line: index + 1, expected: a, found: b) }
        }
        return .differs(path: path, line: 1, expected: "", found: "")
    }

    public var description: String {
        switch self {
        case .missing(let path): return "\(path): missing"
        case .differs(let path, let line, let expected, let found):
            return "\(path):\(line): the library gives\n    \(expected)\n  the file has\n    \(found)"
        }
    }
}
