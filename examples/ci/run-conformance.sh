#!/usr/bin/env bash
# The conformance harness from any CI, or by hand (docs/ci.md "Plain shell"): the same script as the GitHub action
# and the GitLab template, with its inputs as INPUT_* variables. Edit the inputs below for your subject.
set -euo pipefail

HARNESS_REPO="${HARNESS_REPO:-https://github.com/OWNER/hook-conformance-simulator.git}"
HARNESS_REF="${HARNESS_REF:-main}"
HARNESS_DIR="${HARNESS_DIR:-.hook-conformance}"

if [ ! -d "$HARNESS_DIR" ]; then
  git clone --quiet "$HARNESS_REPO" "$HARNESS_DIR"
  git -C "$HARNESS_DIR" checkout --quiet "$HARNESS_REF"
fi
python3 -m venv "$HARNESS_DIR/.venv"
"$HARNESS_DIR/.venv/bin/python" -m pip install --quiet "$HARNESS_DIR"

# The inputs (action.yml lists them; the script's header says what each takes).
export INPUT_TARGETS="hook-server=ws://127.0.0.1:9000/
desktop=listen:127.0.0.1:9100"
export INPUT_CONTROL="hook-server=http://127.0.0.1:9001
desktop=http://127.0.0.1:9101"
export INPUT_SELECTION="HOOK-SERVER-* HOOK-DESKTOP-*"
export INPUT_REPORT_DIR="conformance-report"
# export INPUT_BASELINE="conformance-baseline.toml"
# export INPUT_HOOK_TOKEN="$MY_HOOK_TOKEN"

# Exits with the run's code: 0 conformant, 1 findings, 2 usage error, 3 infrastructure error, 130/143 interrupted.
RUN_CONFORMANCE_PYTHON="$HARNESS_DIR/.venv/bin/python" exec "$HARNESS_DIR/.ci/action/run-conformance"
