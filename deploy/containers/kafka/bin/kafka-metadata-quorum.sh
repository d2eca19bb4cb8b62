#!/bin/bash
exec "$(dirname "$0")/kafka-run-class.sh" org.apache.kafka.tools.MetadataQuorumCommand "$@"
