# Sourced by bin/ashlar, .ci/run and ./mvnw: points JAVA_HOME at a JDK 21 or newer.
# Looks at JAVA_HOME, then `java` on PATH, then /usr/lib/jvm/*; fails with one line when none is found.

ashlar_java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1 | cut -d. -f1
}

ashlar_find_java() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" \
      "$(command -v java >/dev/null 2>&1 && dirname "$(dirname "$(readlink -f "$(command -v java)")")")" \
      /usr/lib/jvm/*; do
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(ashlar_java_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      return 0
    fi
  done
  echo "ashlar: no JDK 21 or newer found (looked at JAVA_HOME, java on PATH, /usr/lib/jvm/*); install one, e.g. apt-get install openjdk-21-jdk-headless" >&2
  return 1
}

ashlar_find_java
