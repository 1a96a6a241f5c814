#!/bin/sh
# Handed to the host's hook runner; agent-skills never runs it.
echo "audit: $*" >&2
