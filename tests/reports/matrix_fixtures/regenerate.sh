#!/bin/sh
# Regenerates the runs tests/reports/test_matrix*.py compare: small real runs of the references and of two broken
# variants of the hook server (docs/falsifiers.md), each a report.json only (the tests render report.html from it).
# Run from the checkout's root with the venv active: sh tests/reports/matrix_fixtures/regenerate.sh
set -euf  # -f: the requirement globs below reach the harness as written
here=tests/reports/matrix_fixtures
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hook_reqs="--req HOOK-SERVER-AUTH-* --req HOOK-SERVER-DELIVERY-0[1-4]"
run() {  # run NAME ARGS…: a run whose findings (exit 1) are expected for the broken variants
    name=$1; shift
    python -m simulator run --formats json --report-dir "$work/$name" "$@" >/dev/null || [ $? -eq 1 ]
    mkdir -p "$here/$name"
    cp "$work/$name/report.json" "$here/$name/report.json"
}
run hook-server-ref --target hook-server=ref $hook_reqs
run hook-server-accepts-any-token --target hook-server=ref \
    --subject-env hook-server=HOOK_SERVER_REFERENCE_VARIANT=accepts-any-token $hook_reqs
run hook-server-delivered-not-reported --target hook-server=ref \
    --subject-env hook-server=HOOK_SERVER_REFERENCE_VARIANT=delivered-not-reported $hook_reqs
run ccweb-ref --target ccweb=ref --req 'CCWEB-SCHEMA-*'
