#!/bin/sh
# Usage: explain.sh DATABASE_URL 'SELECT ...'
# Shows the plan with buffers; never use ANALYZE on statements that write.
set -eu
psql "$1" -X -c "EXPLAIN (COSTS, BUFFERS, FORMAT TEXT) $2"
