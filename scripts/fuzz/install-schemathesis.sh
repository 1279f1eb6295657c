#!/usr/bin/env bash
# Installs schemathesis (PyPI), the OpenAPI-driven fuzzer of test/fuzz/, into a virtualenv of its own under
# .tmp/schemathesis, once: the project's own install step, so CI on a clean clone needs only Python 3.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=4.32.5
VENV=.tmp/schemathesis
if [ -x "$VENV/bin/schemathesis" ] && [ "$("$VENV/bin/schemathesis" --version 2>/dev/null)" = "schemathesis, version $VERSION" ]; then
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is needed for the fuzz test (schemathesis)"; exit 1; }
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$VERSION"
"$VENV/bin/schemathesis" --version
