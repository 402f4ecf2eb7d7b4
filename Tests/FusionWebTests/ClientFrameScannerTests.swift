import NIOCore
import Testing

@testable import FusionWeb

/// ClientFrameScanner follows frames through bytes however the reads cut them: headers
/// split between reads, the three length forms, payloads that span reads. Tests/web's
/// test_protocol.py checks the bridge's answer to an unmasked frame over real sockets.
@Suite struct ClientFrameScannerTests {
    /// A client's text frame with `size` payload bytes, masked or not.
    private func frame(size: Int, masked: Bool = true) -> [UInt8] {
        let flag: UInt8 = masked ? 0x80 : 0
        var bytes: [UInt8] = [0x81]
        switch size {
        case ..<126: bytes.append(flag | UInt8(size))
        case ..<65536: bytes += [flag | 126, UInt8(size >> 8), UInt8(size & 0xFF)]
        default: bytes += [flag | 127] + (0..<8).reversed().map { UInt8((size >> ($0 * 8)) & 0xFF) }
        }
        if masked { bytes += [1, 2, 3, 4] }
        // Payload bytes that look like headers: an unmasked frame's, if the scanner misread a length.
        return bytes + [UInt8](repeating: 0x01, count: size)
    }

    /// Whether every frame was masked, the stream fed to one scanner in reads of `cut` bytes.
    private func allMasked(_ stream: [UInt8], cut: Int) -> Bool {
        var scanner = ClientFrameScanner()
        var start = 0
        while start < stream.count {
            let read = ByteBuffer(bytes: stream[start..<min(start + cut, stream.count)])
            if !scanner.allMasked(read.readableBytesView) { return false }
            start += cut
        }
        return true
    }

    @Test func maskedFramesOfEveryLengthFormPassInReadsOfAnySize() {
        let stream = frame(size: 0) + frame(size: 125) + frame(size: 126) + frame(size: 65535) + frame(size: 65536) + frame(size: 3)
        for cut in [1, 2, 3, 7, 64, 4096, stream.count] {
            #expect(allMasked(stream, cut: cut), "reads of \(cut) bytes")
        }
    }

    @Test func anUnmaskedFrameIsFoundAfterMaskedOnesWhereverTheReadsCut() {
        for size in [0, 5, 200, 70_000] {
            let stream = frame(size: 126) + frame(size: size, masked: false) + frame(size: 1)
            for cut in [1, 2, 131, 132, 133, 1000, stream.count] {
                #expect(!allMasked(stream, cut: cut), "an unmasked frame of \(size) bytes, reads of \(cut)")
            }
        }
    }

    @Test func aControlFrameMustBeMaskedToo() {
        let ping: [UInt8] = [0x89, 0x00]
        #expect(!allMasked(frame(size: 2) + ping, cut: 100))
        #expect(allMasked(frame(size: 2) + [0x89, 0x80, 9, 9, 9, 9], cut: 100))
    }
}
