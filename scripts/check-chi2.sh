#!/usr/bin/env bash
# Runs configs/quickstart-chi2.yaml and configs/ising-tracking.yaml and checks
# their results against the widths the README states (scripts/check-chi2):
# AIS ≤ exact ≤ χ² for both q families, and the Ising run's tracked log Z
# meeting the exact one. About 25 s. .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/logz" ./cmd/logz
"$out/logz" run configs/quickstart-chi2.yaml --out "$out/quickstart-chi2" > /dev/null 2>&1 || { echo "logz run failed"; exit 1; }
go run ./scripts/check-chi2 quickstart "$out/quickstart-chi2"
"$out/logz" run configs/ising-tracking.yaml --out "$out/ising-tracking" > /dev/null 2>&1 || { echo "logz run failed"; exit 1; }
go run ./scripts/check-chi2 tracking "$out/ising-tracking"
