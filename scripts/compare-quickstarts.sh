#!/usr/bin/env bash
# compare-quickstarts.sh — runs every quickstart config with two logz
# binaries and compares their results.json with the times ("seconds") left
# out: a change that should not touch the arithmetic (a restructuring, a
# refactor) must print "identical" for every config.
#
#   scripts/compare-quickstarts.sh OLD_LOGZ NEW_LOGZ
#   e.g.  git worktree add /tmp/old main && (cd /tmp/old && go build -o /tmp/logz-old ./cmd/logz)
#         go build -o /tmp/logz-new ./cmd/logz && scripts/compare-quickstarts.sh /tmp/logz-old /tmp/logz-new
set -uo pipefail
if [ $# -ne 2 ]; then sed -n '2,10p' "$0"; exit 2; fi
old=$1 new=$2
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
norm() { sed -E 's/"seconds": [^,]*,/"seconds": 0,/' "$1"; }
configs=(quickstart quickstart-dbn quickstart-dbm quickstart-sbn ising-quickstart quickstart-chi2 ising-tracking quickstart-vae)
fail=0
for c in "${configs[@]}"; do
	for side in old new; do
		bin=$old; [ $side = new ] && bin=$new
		"$bin" run "configs/$c.yaml" --out "$work/$side/$c" >/dev/null 2>"$work/$c.$side.log" ||
			{ echo "$c: logz run ($side) failed"; tail -3 "$work/$c.$side.log"; fail=1; continue 2; }
	done
	if cmp -s <(norm "$work/old/$c/results.json") <(norm "$work/new/$c/results.json"); then
		echo "$c: identical"
	else
		echo "$c: DIFFERS"
		diff <(norm "$work/old/$c/results.json") <(norm "$work/new/$c/results.json") | head -8
		fail=1
	fi
done
exit $fail
