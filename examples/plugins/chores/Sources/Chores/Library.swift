import FusionKit

/// The registration line: the features libChores exports through FusionKit's C ABI.
/// Add a feature by listing its type here.
#exportLibrary(name: "Chores", version: "1.1.0", features: TodoList.self, TallyCounter.self)
