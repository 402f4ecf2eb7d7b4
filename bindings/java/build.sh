#!/usr/bin/env bash
# Builds the `fusionkit` jar with javac and jar (no Maven Central): bindings/java/src ->
# .build/java/fusionkit.jar, against Debian's JNA and Jackson (scripts/setup installs
# libjna-java and libjackson2-databind-java). Prints the jar's path.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build/java
classpath=/usr/share/java/jna.jar:/usr/share/java/jackson-databind.jar:/usr/share/java/jackson-core.jar:/usr/share/java/jackson-annotations.jar
rm -rf "$out/classes" && mkdir -p "$out/classes"
javac --release 17 -Xlint:all -Werror -encoding UTF-8 -cp "$classpath" -d "$out/classes" \
    $(find bindings/java/src -name '*.java' | sort)
jar --create --file "$out/fusionkit.jar" -C "$out/classes" .
echo "$out/fusionkit.jar"
