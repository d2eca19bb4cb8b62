#!/usr/bin/env bash
# Local infrastructure without Docker: Apache Kafka 3.9 (KRaft, from Maven Central jars) and
# FerretDB 1.24 (MongoDB wire protocol, SQLite backend, built from deploy/local/ferretdb).
#   infra.sh up [kafka|ferretdb] | down [kafka|ferretdb] | status | prepare
# With POSTBUS_OWNER_PID set, `up` also leaves a watcher that stops what it started once that
# process is gone (npm start killed with SIGKILL, or its terminal closed).
# Downloads and builds are cached in $POSTBUS_CACHE_DIR (default ~/.cache/postbus), keyed by the
# hash of the files that define them; data and logs live in $POSTBUS_DATA_DIR (default ./.data).
set -euo pipefail
shopt -s inherit_errexit # a failed build inside $(…) stops the script instead of carrying on

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${POSTBUS_CACHE_DIR:-$HOME/.cache/postbus}"
DATA="${POSTBUS_DATA_DIR:-$ROOT/.data}"
RUN="$DATA/run"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
MONGO_PORT="${MONGO_PORT:-27017}"
KAFKA_CLUSTER_ID="UG9zdGJ1c0xvY2FsS2Fma2E"

say() { printf '[infra] %s\n' "$*" >&2; }
die() { printf '[infra] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

hash_of() { cat "$@" | sha256sum | cut -c1-12; }

need() { command -v "$1" >/dev/null 2>&1 || die "$1 is required ($2)"; }

# Downloads and builds go to a temporary name of their own and are renamed into place when
# complete, so two runs preparing at once (npm start beside npm test) never see half a result.
kafka_libs() {
  local dir tmp
  dir="$CACHE/kafka-libs-$(hash_of "$HERE/kafka/pom.xml")"
  if [ ! -f "$dir/.complete" ]; then
    need mvn "Maven fetches Kafka's jars from Maven Central"
    say "fetching Apache Kafka jars with Maven into $dir (first run only, ~50 MB)"
    mkdir -p "$CACHE"
    tmp="$(mktemp -d "$CACHE/kafka-libs.XXXXXX")"
    mvn -B -q -f "$HERE/kafka/pom.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp" >&2 || { rm -rf "$tmp"; die "fetching Kafka's jars failed"; }
    touch "$tmp/.complete"
    if [ -f "$dir/.complete" ]; then rm -rf "$tmp"; else rm -rf "$dir"; mv "$tmp" "$dir"; fi
  fi
  echo "$dir"
}

ferretdb_bin() {
  local bin tmp
  bin="$CACHE/ferretdb-$(hash_of "$HERE/ferretdb/main.go" "$HERE/ferretdb/go.mod" "$HERE/ferretdb/go.sum" "$HERE/ferretdb/patch-id-lookup.sh")"
  if [ ! -x "$bin" ]; then
    need go "Go builds the local FerretDB server"
    say "building FerretDB (MongoDB wire, SQLite backend) into $bin (first run only, ~2 min)"
    mkdir -p "$CACHE"
    tmp="$(mktemp "$CACHE/ferretdb-build.XXXXXX")"
    src="$(mktemp -d "$CACHE/ferretdb-src.XXXXXX")"
    (cd "$HERE/ferretdb" && bash patch-id-lookup.sh "$src" >&2 && CGO_ENABLED=0 go build -modfile "$src/go.mod" -o "$tmp" . >&2) ||
      { rm -rf "$tmp" "$src"; die "building FerretDB failed"; }
    rm -rf "$src"
    mv -f "$tmp" "$bin"
  fi
  echo "$bin"
}

wait_port() { # name port pidfile seconds log
  local i
  for ((i = 0; i < $4 * 10; i++)); do
    port_open "$2" && return 0
    if ! kill -0 "$(cat "$3")" 2>/dev/null; then
      tail -n 30 "$5" >&2 || true
      die "$1 exited during start-up (log: $5)"
    fi
    sleep 0.1
  done
  tail -n 30 "$5" >&2 || true
  die "$1 did not accept connections on port $2 within $4 s (log: $5)"
}

start_kafka() {
  if port_open "$KAFKA_PORT"; then say "Kafka already listening on 127.0.0.1:$KAFKA_PORT"; return; fi
  need java "Kafka runs on the machine's Java (17+)"
  local libs props
  libs="$(kafka_libs)"
  mkdir -p "$DATA/kafka" "$RUN"
  props="$RUN/server.properties"
  sed -e "s#DATA_DIR#$DATA#g" -e "s#KAFKA_CONTROLLER_PORT#$KAFKA_CONTROLLER_PORT#g" -e "s#KAFKA_PORT#$KAFKA_PORT#g" \
    "$HERE/kafka/server.properties.template" > "$props"
  local jopts=(-Xms512m -Xmx1g -XX:+UseG1GC -Djava.awt.headless=true "-Dlog4j.configuration=file:$HERE/kafka/log4j.properties")
  java "${jopts[@]}" -cp "$libs/*" kafka.tools.StorageTool format -c "$props" -t "$KAFKA_CLUSTER_ID" --ignore-formatted > "$RUN/kafka-format.log" 2>&1 \
    || { cat "$RUN/kafka-format.log" >&2; die "formatting Kafka storage failed"; }
  # Kafka keeps a file open per partition; the soft limit is often 1024, far below the hard one.
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  say "starting Kafka 3.9 (KRaft) on 127.0.0.1:$KAFKA_PORT"
  nohup java "${jopts[@]}" -cp "$libs/*" kafka.Kafka "$props" > "$RUN/kafka.log" 2>&1 8>&- &
  echo $! > "$RUN/kafka.pid"
  wait_port Kafka "$KAFKA_PORT" "$RUN/kafka.pid" 90 "$RUN/kafka.log"
  say "Kafka is up"
}

start_ferretdb() {
  if port_open "$MONGO_PORT"; then say "MongoDB-wire server already listening on 127.0.0.1:$MONGO_PORT"; return; fi
  local bin
  bin="$(ferretdb_bin)"
  mkdir -p "$DATA/ferretdb" "$RUN"
  say "starting FerretDB 1.24 (SQLite) on 127.0.0.1:$MONGO_PORT"
  nohup "$bin" -listen "127.0.0.1:$MONGO_PORT" -dir "$DATA/ferretdb" > "$RUN/ferretdb.log" 2>&1 8>&- &
  echo $! > "$RUN/ferretdb.pid"
  wait_port FerretDB "$MONGO_PORT" "$RUN/ferretdb.pid" 30 "$RUN/ferretdb.log"
  say "FerretDB is up"
}

stop_one() { # name
  local pidfile="$RUN/$1.pid" pid i
  [ -f "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    say "stopping $1 (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

status() {
  local ok=0
  if port_open "$KAFKA_PORT"; then say "Kafka: up on 127.0.0.1:$KAFKA_PORT"; else say "Kafka: down"; ok=1; fi
  if port_open "$MONGO_PORT"; then say "MongoDB-wire: up on 127.0.0.1:$MONGO_PORT"; else say "MongoDB-wire: down"; ok=1; fi
  return $ok
}

# Stops what this `up` started once $POSTBUS_OWNER_PID is gone.
watch_owner() { # names…
  [ -n "${POSTBUS_OWNER_PID:-}" ] && [ $# -gt 0 ] || return 0
  local owner="$POSTBUS_OWNER_PID" names="$*"
  nohup bash -c "while kill -0 $owner 2>/dev/null; do sleep 1; done; for n in $names; do bash '$HERE/infra.sh' down \$n; done" \
    >> "$RUN/watch-$owner.log" 2>&1 8>&- &
}

up() { # [kafka|ferretdb]: what is already listening is kept; what is not is started
  local started=()
  # Two runs starting at once (npm test beside npm start, two checkouts) would both start a server
  # on the same ports and one would fail: the second waits for the first and then finds it running.
  if command -v flock >/dev/null; then
    exec 8>"${TMPDIR:-/tmp}/postbus-infra-$KAFKA_PORT-$MONGO_PORT.lock"
    flock 8
  fi
  case "${1:-all}" in
    ferretdb | all) port_open "$MONGO_PORT" || started+=(ferretdb); start_ferretdb ;;&
    kafka | all) port_open "$KAFKA_PORT" || started+=(kafka); start_kafka ;;
    ferretdb) ;;
    *) die "up takes kafka, ferretdb or nothing" ;;
  esac
  watch_owner "${started[@]}"
  if command -v flock >/dev/null; then flock -u 8; fi
}

case "${1:-}" in
  up) up "${2:-all}" ;;
  down)
    case "${2:-all}" in
      kafka | ferretdb) stop_one "$2" ;;
      all) stop_one kafka; stop_one ferretdb ;;
      *) die "down takes kafka, ferretdb or nothing" ;;
    esac ;;
  status) status ;;
  prepare) kafka_libs >/dev/null; ferretdb_bin >/dev/null; say "downloads and builds are cached in $CACHE" ;;
  *) echo "usage: $0 up [kafka|ferretdb] | down [kafka|ferretdb] | status | prepare" >&2; exit 2 ;;
esac
