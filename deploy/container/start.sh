#!/bin/sh
# The container's command (Dockerfile: tini runs this) and what test/e2e/deploy-package.test.ts runs from an
# installed package, so the two cannot drift. `exec`: node becomes tini's child and gets SIGTERM itself, then drains
# (docs/deploy.md). CHAINGATE_CONFIG and CHAINGATE_DATA_DIR are the two documented mounts; arguments are appended.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
exec node "$here/bin/chaingate.mjs" start \
  --config "${CHAINGATE_CONFIG:-/etc/chaingate/chaingate.yaml}" \
  --data-dir "${CHAINGATE_DATA_DIR:-/var/lib/chaingate}" \
  "$@"
