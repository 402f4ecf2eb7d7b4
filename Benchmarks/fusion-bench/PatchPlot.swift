import Foundation

/// A log-log line chart of whole-state and patch cost by number of networks, as SVG.
enum PatchPlot {
    static func svg(_ rows: [LargeStateWorkloads.PatchRow]) -> String {
        let width = 640.0
        let height = 400.0
        let left = 80.0
        let right = 40.0
        let top = 40.0
        let bottom = 60.0
        let xs = rows.map { log10(Double($0.networks)) }
        let ys = rows.flatMap { [log10($0.fullNanos), log10($0.patchNanos)] }
        guard let xMin = xs.min(), let xMax = xs.max(), let yLow = ys.min(), let yHigh = ys.max(), xMax > xMin else {
            return "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"
        }
        let yMin = floor(yLow)
        let yMax = ceil(yHigh)
        func x(_ v: Double) -> Double { left + (v - xMin) / (xMax - xMin) * (width - left - right) }
        func y(_ v: Double) -> Double { top + (yMax - v) / max(yMax - yMin, 1) * (height - top - bottom) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"12\">\n"
        svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        svg +=
            "<text x=\"\(Int(width / 2))\" y=\"22\" text-anchor=\"middle\" font-size=\"14\">One changed network: whole state vs JSON Patch (log-log)</text>\n"
        var decade = yMin
        while decade <= yMax {
            let label =
                decade >= 6
                ? "\(Int(pow(10, decade - 6))) ms" : decade >= 3 ? "\(Int(pow(10, decade - 3))) µs" : "\(Int(pow(10, decade))) ns"
            svg += "<line x1=\"\(left)\" y1=\"\(y(decade))\" x2=\"\(width - right)\" y2=\"\(y(decade))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(left - 8)\" y=\"\(y(decade) + 4)\" text-anchor=\"end\">\(label)</text>\n"
            decade += 1
        }
        for row in rows {
            let px = x(log10(Double(row.networks)))
            svg += "<text x=\"\(px)\" y=\"\(height - bottom + 20)\" text-anchor=\"middle\">\(row.networks)</text>\n"
        }
        svg += "<text x=\"\(Int(width / 2))\" y=\"\(Int(height - 15))\" text-anchor=\"middle\">networks in the list</text>\n"
        for (series, colour, value) in [
            ("whole state", "#c0392b", { (r: LargeStateWorkloads.PatchRow) in r.fullNanos }),
            ("patch", "#2471a3", { (r: LargeStateWorkloads.PatchRow) in r.patchNanos })
        ] {
            let points = rows.map { "\(x(log10(Double($0.networks)))),\(y(log10(value($0))))" }.joined(separator: " ")
            svg += "<polyline points=\"\(points)\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            for row in rows {
                svg += "<circle cx=\"\(x(log10(Double(row.networks))))\" cy=\"\(y(log10(value(row))))\" r=\"3\" fill=\"\(colour)\"/>\n"
            }
            let legendY = series == "patch" ? top + 36 : top + 18
            svg +=
                "<line x1=\"\(left + 16)\" y1=\"\(legendY - 4)\" x2=\"\(left + 40)\" y2=\"\(legendY - 4)\" stroke=\"\(colour)\" stroke-width=\"2\"/>\n"
            svg += "<text x=\"\(left + 46)\" y=\"\(legendY)\">\(series)</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }
}
