/// The stream cannot represent what the `Encodable` code did; start over with the tree.
struct OutOfOrder: Error {}
