#!/usr/bin/env bash
# Prints the home of a JDK >= 21: JAVA_HOME if it is one, else the newest in /usr/lib/jvm.
# Exits 1 with a message naming what to install when there is none.
set -euo pipefail
MIN_JAVA_FEATURE=21

java_feature_of() { # $1 = JDK home; prints the feature version or nothing
  local java="$1/bin/java"
  [[ -x "$java" && -x "$1/bin/javac" ]] || return 0
  "$java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p' | head -1
}

if [[ -n "${JAVA_HOME:-}" ]]; then
  v="$(java_feature_of "$JAVA_HOME")"
  if [[ -n "$v" && "$v" -ge $MIN_JAVA_FEATURE ]]; then echo "$JAVA_HOME"; exit 0; fi
fi
best=""; best_v=0
for home in /usr/lib/jvm/*; do
  [[ -d "$home" && ! -L "$home" ]] || continue
  v="$(java_feature_of "$home")"
  if [[ -n "$v" && "$v" -ge $MIN_JAVA_FEATURE && "$v" -gt $best_v ]]; then best="$home"; best_v="$v"; fi
done
if [[ -n "$best" ]]; then echo "$best"; exit 0; fi
echo "pacer needs a JDK $MIN_JAVA_FEATURE or newer (found none in JAVA_HOME='${JAVA_HOME:-}' or /usr/lib/jvm)." >&2
echo "Install one, e.g. 'apt-get install openjdk-21-jdk-headless' or a Temurin 21/25 JDK, or point JAVA_HOME at it." >&2
exit 1
