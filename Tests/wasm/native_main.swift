// The host build of the probe: one JSON text per line in, one answer per line out.
@main
struct ProbeMain {
    static func main() {
        while let line = readLine(strippingNewline: true) {
            print(probe(Array(line.utf8)))
        }
    }
}
