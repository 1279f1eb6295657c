#!/usr/bin/env bash
# Fetches the pinned Apache Kafka broker jars (scripts/kafka/pom.xml) with their runtime dependencies
# through Maven into .cache/kafka/<version>/libs and prints that folder. Idempotent: when the jars are
# already there it prints the folder and exits without starting Maven.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pom="$here/pom.xml"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom" | head -n 1)"
if [ -z "$version" ]; then
  echo "fetch-kafka: no <kafka.version> in $pom" >&2
  exit 1
fi
dest="${KAFKA_CACHE_DIR:-$root/.cache/kafka}/$version"
libs="$dest/libs"

if [ -f "$libs/.complete" ]; then
  echo "$libs"
  exit 0
fi

command -v mvn >/dev/null || { echo "fetch-kafka: mvn (Apache Maven) is required" >&2; exit 1; }
command -v java >/dev/null || { echo "fetch-kafka: java (17 or newer) is required" >&2; exit 1; }

mkdir -p "$dest"
# Copy into a private folder, then move it into place, so concurrent runs never see half a folder.
tmp="$(mktemp -d "$dest/libs.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-kafka: fetching Apache Kafka $version through Maven..." >&2
if ! mvn -q -B -f "$pom" dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$tmp" >"$tmp.log" 2>&1; then
  cat "$tmp.log" >&2
  rm -f "$tmp.log"
  exit 1
fi
rm -f "$tmp.log"
touch "$tmp/.complete"
if ! mv -T "$tmp" "$libs" 2>/dev/null; then
  # Another run won the race; its folder is complete.
  [ -f "$libs/.complete" ] || { echo "fetch-kafka: could not install $libs" >&2; exit 1; }
fi
trap - EXIT
rm -rf "$tmp"
echo "$libs"
