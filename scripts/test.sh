#!/usr/bin/env bash
# Set up, build, and run every test through ctest. GPU tests report themselves as skipped on a
# machine without a CUDA device.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/setup.sh"
ctest --test-dir "$build" --output-on-failure -j"$(nproc)"
