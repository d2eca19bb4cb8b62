#!/bin/bash
# Entry point of the Kafka stand-in image: apache/kafka's configuration by environment.
#   KAFKA_FOO_BAR=x    → foo.bar=x     (_ → .)
#   KAFKA_FOO__BAR=x   → foo_bar=x     (__ → _)
#   KAFKA_FOO___BAR=x  → foo-bar=x     (___ → -)
# KAFKA_HEAP_OPTS, KAFKA_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_LOG4J_OPTS and KAFKA_GC_LOG_OPTS
# are JVM options, not settings. CLUSTER_ID formats log.dirs on the first start.
set -euo pipefail
props=/opt/kafka/config/server.properties
: > "$props"
while IFS= read -r var; do
  case "$var" in
    KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_LOG4J_OPTS | KAFKA_GC_LOG_OPTS | KAFKA_JMX_OPTS | KAFKA_DEBUG | KAFKA_VERSION) continue ;;
  esac
  name="${var#KAFKA_}"
  name="${name,,}"
  name="${name//___/-}"
  name="${name//__/@}"
  name="${name//_/.}"
  name="${name//@/_}"
  printf '%s=%s\n' "$name" "${!var}" >> "$props"
done < <(compgen -e | grep '^KAFKA_' | sort)
grep -q '^node.id=' "$props" || { echo "set KAFKA_NODE_ID (and the rest of the KRaft settings)" >&2; exit 1; }
: "${CLUSTER_ID:?set CLUSTER_ID (the same on every node of a cluster)}"

export KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms1g -Xmx1g}"
jvm=(${KAFKA_HEAP_OPTS} ${KAFKA_JVM_PERFORMANCE_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent}
  -Djava.awt.headless=true "-Dlog4j.configuration=file:/opt/kafka/config/log4j.properties" ${KAFKA_OPTS:-})
java "${jvm[@]}" -cp '/opt/kafka/libs/*' kafka.tools.StorageTool format -c "$props" -t "$CLUSTER_ID" --ignore-formatted
# Kafka keeps a file open per partition segment.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
exec java "${jvm[@]}" -cp '/opt/kafka/libs/*' kafka.Kafka "$props"
