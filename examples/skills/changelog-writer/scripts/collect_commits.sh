#!/bin/sh
# Lists commits since the last tag, one line each, without merges.
set -eu
last_tag=$(git describe --tags --abbrev=0 2>/dev/null || git rev-list --max-parents=0 HEAD)
git log --no-merges --pretty='format:%h %s (%an)' "${last_tag}..HEAD"
