#!/bin/sh
# Redraws docs/img/quickstart-loglik.png, the README's picture: the first
# plot of the quickstart's report.html (the CD-1 RBM's mean test
# log-likelihood per epoch: exact, AIS and RAISE), converted from the SVG
# embedded in report.html to a PNG 720 pixels wide with rsvg-convert
# (Debian: apt-get install librsvg2-bin). Needs python3 (no packages).
# Usage: scripts/readme-figure.sh [RUN_DIR]   (default: a fresh quickstart run in a temporary folder)
set -eu
cd "$(dirname "$0")/.."
command -v rsvg-convert >/dev/null || { echo "needs rsvg-convert (apt-get install librsvg2-bin)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RUN=${1:-}
if [ -z "$RUN" ]; then
	RUN=$TMP/q
	go run ./cmd/logz run --out "$RUN" >/dev/null
fi
python3 - "$RUN/report.html" "$TMP/fig.svg" <<'PY'
import base64, re, sys
html = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<figure id="cd1-h12-loglik-test">\s*<img[^>]*src="data:image/svg\+xml;base64,([^"]+)"', html)
if not m:
    sys.exit("report.html has no cd1-h12-loglik-test figure")
open(sys.argv[2], "wb").write(base64.b64decode(m.group(1)))
PY
rsvg-convert -w 720 -b white "$TMP/fig.svg" -o docs/img/quickstart-loglik.png
ls -l docs/img/quickstart-loglik.png
