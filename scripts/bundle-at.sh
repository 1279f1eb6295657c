#!/usr/bin/env bash
# Builds the services as they were at a commit into a bundle directory, for a bench's baseline in the same sitting:
#   scripts/bundle-at.sh <commit> <outdir>      then   BENCH_BUNDLE=<outdir> npx tsx bench/…
# The commit's services and scripts are compiled; the workspace libraries (@bda/*) resolve through this checkout's
# node_modules, so they are this checkout's: a baseline for a change in services/, not in libs/.
set -euo pipefail
commit="$1"
out="$(realpath -m "$2")"
root="$(cd "$(dirname "$0")/.." && pwd)"
tree="$(mktemp -d "$root/.tmp/bundle-at-XXXXXX")"
trap 'rm -rf "$tree"' EXIT
git -C "$root" archive "$commit" services scripts package.json | tar -x -C "$tree"
ln -s "$root/node_modules" "$tree/node_modules"
(cd "$tree" && node scripts/build.mjs --outdir "$(realpath --relative-to="$tree" "$out")")
echo "bundle of $commit in $out"
