#!/bin/bash
# kafka-run-class.sh CLASS ARGS…: a Kafka tool on the image's jars. As in Kafka's own script, the
# heap comes from KAFKA_HEAP_OPTS (default -Xmx256M): inside a broker's container that is the
# broker's, so health checks set a small one.
set -eu
class="$1"
shift
exec java ${KAFKA_HEAP_OPTS:--Xmx256M} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.awt.headless=true \
  -Dlog4j.configuration=file:/opt/kafka/config/tools-log4j.properties -cp '/opt/kafka/libs/*' "$class" "$@"
