#!/usr/bin/env bash
# GPU check in one command (under 8 minutes on one H100/H200): gpu-marked tests, the
# Burgers FNO at the paper preset (s = 1024, one seed) with its test error, FNO-epoch and
# Navier-Stokes timings with and without bf16 against the CPU; all in one JSON.
#   bash benchmarks/gpu_check.sh [--dry-run] [--out DIR]   (default DIR: results/gpu_check)
# --dry-run checks the script on a CPU in seconds (CI). PYTHON selects the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
exec "${PYTHON:-python3}" benchmarks/gpu_check.py "$@"
