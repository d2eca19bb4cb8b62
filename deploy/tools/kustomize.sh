#!/usr/bin/env bash
# Prints the path of a kustomize binary (the pinned version below), building it first when it is
# missing: `go install sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION` from the Go module
# proxy into $POSTBUS_CACHE_DIR (default ~/.cache/postbus), like deploy/local/infra.sh's builds.
# Used by .ci/run and by deploy/test/config-drift.test.ts (which renders deploy/k8s with it).
#   bash deploy/tools/kustomize.sh        # -> ~/.cache/postbus/kustomize-v5.8.1/kustomize
set -euo pipefail

# v5.8.1 builds with Go 1.24, the version deploy/local/ferretdb already needs (v5.8.2 wants 1.26,
# v5.8.3 1.27): no newer Go than the rest of the project.
KUSTOMIZE_VERSION="v5.8.1"
CACHE="${POSTBUS_CACHE_DIR:-$HOME/.cache/postbus}"
DIR="$CACHE/kustomize-$KUSTOMIZE_VERSION"
BIN="$DIR/kustomize"

say() { printf '[kustomize] %s\n' "$*" >&2; }
die() { printf '[kustomize] error: %s\n' "$*" >&2; exit 1; }

if [ ! -x "$BIN" ]; then
  command -v go >/dev/null 2>&1 || die "go is required to build kustomize (Debian: apt-get install golang-go; macOS: brew install go)"
  say "building kustomize $KUSTOMIZE_VERSION with go install into $DIR (first run only, ~1-2 min)"
  mkdir -p "$CACHE"
  # Built into a directory of its own and renamed into place when complete, so two runs building
  # at once never see half a binary.
  tmp="$(mktemp -d "$CACHE/kustomize-build.XXXXXX")"
  # nice: the first build shares the machine with whatever else runs (a test suite, the services).
  GOBIN="$tmp" CGO_ENABLED=0 nice -n 10 go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION" >&2 ||
    { rm -rf "$tmp"; die "go install sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION failed (is the Go module proxy reachable?)"; }
  if [ -x "$BIN" ]; then rm -rf "$tmp"; else rm -rf "$DIR"; mv "$tmp" "$DIR"; fi
fi
echo "$BIN"
