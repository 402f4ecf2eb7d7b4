#!/usr/bin/env bash
# The Java round trip, measured (bindings/java/bench/JavaBench.java): the package against the
# bare JNA call (the floor) and a plain-Java Counter with Jackson, and the Wi-Fi state of
# 1,000 networks. Not a test. One run; Benchmarks/java/run.py (called by scripts/bench) makes
# several and keeps their samples for docs/performance.md. Measure with the release library
# (swift build -c release --product FusionExamples).
#   bindings/java/bench.sh [LIBRARY] [ROUNDS] [PER_ROUND] [SAMPLES_JSON]
set -euo pipefail
cd "$(dirname "$0")/../.."
library=${1:-$(swift build -c release --show-bin-path)/libFusionExamples.so}
jar=$(bindings/java/build.sh)
deps=/usr/share/java/jna.jar:/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-core.jar:/usr/share/java/jackson-annotations.jar
out=.build/java/bench
rm -rf "$out" && mkdir -p "$out"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -cp "$jar:$deps" -d "$out" bindings/java/bench/JavaBench.java
java -Xss2m -cp "$jar:$deps:$out" fusionkit.JavaBench "$library" "${2:-21}" "${3:-20000}" ${4:+"$4"}
