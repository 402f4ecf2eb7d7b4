import FusionHost

/// Tab completion for the REPL: input case names (and `:` commands) as the first word,
/// then the field names of that case not given yet, then the values of a field whose
/// type lists them.
enum InputCompletion {
    static func completer(for feature: Manifest.Feature, commands: [String]) -> LineEditor.Completer {
        { beforeCursor in
            let characters = Array(beforeCursor)
            var start = characters.count
            while start > 0 && !characters[start - 1].isWhitespace { start -= 1 }
            let word = String(characters[start...])
            let earlier = String(characters[..<start]).split(whereSeparator: \.isWhitespace).map(String.init)
            return Completion(wordStart: start, candidates: candidates(word: word, earlier: earlier, feature: feature, commands: commands))
        }
    }

    static func candidates(word: String, earlier: [String], feature: Manifest.Feature, commands: [String]) -> [Completion.Candidate] {
        guard let caseName = earlier.first else {
            if word.hasPrefix(":") { return commands.map { Completion.Candidate(text: $0, suffix: "") } }
            return feature.inputs.map { Completion.Candidate(text: $0.name, suffix: $0.fields.isEmpty ? "" : " ") }
        }
        guard let input = feature.input(named: caseName) else { return [] }
        if let equals = word.firstIndex(of: "=") {
            let name = String(word[..<equals])
            guard let schema = input.field(named: name)?.schema else { return [] }
            let values =
                SchemaText.enumValues(SchemaText.optionalWrapped(schema) ?? schema)
                ?? (SchemaText.typeName(schema).hasPrefix("boolean") ? ["true", "false"] : [])
            return values.map { Completion.Candidate(text: "\(name)=\($0)", suffix: " ") }
        }
        let given = Set(earlier.dropFirst().compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
        return input.fields.filter { !given.contains($0.name) }.map { Completion.Candidate(text: $0.name, suffix: "=") }
    }
}
