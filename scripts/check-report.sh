#!/usr/bin/env bash
# check-report.sh: test a run folder's report.html in a real browser.
#
#   scripts/check-report.sh RUN_DIR [SCREENSHOT.png]
#   scripts/check-report.sh --self-test
#
# Opens RUN_DIR/report.html (a file:// URL) in headless Chromium and takes a
# full-page screenshot, by default to a new temporary file (mktemp, kept and
# printed), so the run folder is left as it was. Fails, naming each problem,
# if the page is missing or blank (no body text, or a single-colour
# screenshot), an <img>, <object> or inline-SVG <image> did not load, a local
# file the page refers to is missing, the page asks for anything over the
# network, or the console shows an error or a warning or a page error occurs,
# the page is wider than a 1400 px window, or a figure (inline SVG or an SVG
# data: URI) has tick labels of an axis that repeat, are not monotone or do
# not match their positions (the rounded "4, 2, 2" of ticks at 3.5, 2.5,
# 1.5), or a legend that names a series twice.
# On success it prints the page title, the number of images and inline SVG
# figures, and the screenshot's path and size. scripts/check-report.mjs does
# the browser work.
#
# --self-test builds run folders in a temporary folder, one good (a data-URI
# PNG, a PNG file, inline SVG with an embedded PNG, links to files that exist)
# and a figure with good ticks and legend) and one for each failure above, runs
# the check on each, and fails unless the good one passes and each bad one
# fails with its own message. About 45 s. .ci/run runs it, then the check on the quick start.
#
# Needs node/npm and Chromium (Debian package chromium): run as root, the
# script installs Chromium with apt-get; otherwise it prints the command.
# playwright-core (pinned below) is installed once with npm into
# ${XDG_CACHE_HOME:-$HOME/.cache}/logz-check-report, outside the repository;
# later runs reuse it. LOGZ_CHROMIUM overrides the browser binary.
set -euo pipefail

readonly PLAYWRIGHT="playwright-core@1.65.1"
readonly CHROMIUM_PKG="chromium"
here=$(cd "$(dirname "$0")" && pwd)
chromium=${LOGZ_CHROMIUM:-/usr/bin/chromium}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/logz-check-report
pwdir="$cache/${PLAYWRIGHT/@/-}"

die() {
	echo "check-report.sh: $*" >&2
	exit 1
}

usage() {
	echo "usage: scripts/check-report.sh RUN_DIR [SCREENSHOT.png] | --self-test" >&2
	exit 2
}

need_chromium() {
	[[ -x $chromium ]] && return 0
	[[ -z ${LOGZ_CHROMIUM:-} ]] || die "LOGZ_CHROMIUM=$chromium is not an executable file"
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "installing the Debian package $CHROMIUM_PKG ..." >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$CHROMIUM_PKG" >/dev/null ||
			die "apt-get install $CHROMIUM_PKG failed (try apt-get update first)"
		[[ -x $chromium ]] || die "apt-get installed $CHROMIUM_PKG but $chromium is missing"
		return 0
	fi
	die "Chromium not found at $chromium; install it with: sudo apt-get install $CHROMIUM_PKG (or set LOGZ_CHROMIUM)"
}

# need_playwright installs playwright-core into a fresh folder beside
# $pwdir and renames it into place, so an interrupted install is never used.
need_playwright() {
	[[ -f $pwdir/node_modules/playwright-core/package.json ]] && return 0
	command -v node >/dev/null && command -v npm >/dev/null ||
		die "node and npm are needed (Debian: apt-get install nodejs npm)"
	mkdir -p "$cache"
	local tmp
	tmp=$(mktemp -d "$cache/install.XXXXXX")
	echo "installing $PLAYWRIGHT into $pwdir (once) ..." >&2
	(cd "$tmp" && npm install --silent --no-audit --no-fund --no-save "$PLAYWRIGHT" >/dev/null 2>&1) || {
		rm -rf "$tmp"
		die "npm install $PLAYWRIGHT failed (run it in $tmp by hand to see why)"
	}
	mv -T "$tmp" "$pwdir" 2>/dev/null || rm -rf "$tmp" # lost a race: another run installed it
	[[ -f $pwdir/node_modules/playwright-core/package.json ]] || die "$PLAYWRIGHT did not install into $pwdir"
}

check() { # check RUN_DIR SCREENSHOT
	LOGZ_PLAYWRIGHT_DIR=$pwdir LOGZ_CHROMIUM=$chromium node "$here/check-report.mjs" "$1/report.html" "$2"
}

# A 16×16 PNG (a red-and-blue checkerboard) for the fixtures.
readonly PNG16=iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAJElEQVR42mNQcLgARxcUFOAIlzjDINRAjCJk8cGoYTQeBoUGABznIBAge/kwAAAAAElFTkSuQmCC

self_test() {
	local dir
	dir=$(mktemp -d)
	# shellcheck disable=SC2064 # expand $dir now
	trap "rm -rf -- '$dir'" EXIT
	local head='<!doctype html><html><head><meta charset="utf-8"><title>fixture</title></head><body><h1>Run</h1><p>log-likelihood -84.2</p>'
	local svg='<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60"><polyline points="0,50 40,30 80,20 120,10" fill="none" stroke="black"/>'
	# svgimg TEXTS: an <img> of an SVG data: URI holding the <text> elements TEXTS.
	svgimg() {
		printf '<img alt="fig" src="data:image/svg+xml;base64,%s">' \
			"$(printf '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="150">%s</svg>' "$1" | base64 -w0)"
	}
	t() { # t X Y SIZE TEXT: one <text>
		printf '<text x="%s" y="%s" style="font-size:%spx">%s</text>' "$1" "$2" "$3" "$4"
	}
	local goodfig badticks uneven dup
	goodfig=$(svgimg "$(t 140 14 12 Title)$(t 40 140 10 4)$(t 140 140 10 16)$(t 240 140 10 28)$(t 2 100 10 1.5)$(t 2 70 10 2.5)$(t 2 40 10 3.5)$(t 200 30 11 ais)$(t 200 45 11 raise)")
	badticks=$(svgimg "$(t 140 14 12 Title)$(t 2 100 10 2)$(t 2 70 10 2)$(t 2 40 10 4)")
	uneven=$(svgimg "$(t 140 14 12 Title)$(t 2 100 10 -8.2)$(t 2 70 10 -7.8)$(t 2 40 10 -7.2)")
	dup=$(svgimg "$(t 140 14 12 Title)$(t 2 100 10 1)$(t 2 40 10 2)$(t 200 30 11 'ais (base-rate)')$(t 200 45 11 'ais (base-rate)')")
	mk() { # mk NAME BODY: a run folder whose report.html is the head, BODY and the tail
		mkdir -p "$dir/$1"
		printf '%s%s</body></html>\n' "$head" "$2" >"$dir/$1/report.html"
	}
	mk good "$goodfig<img src=\"data:image/png;base64,$PNG16\" width=\"64\">$svg<image href=\"data:image/png;base64,$PNG16\" width=\"16\" height=\"16\"/></svg><img src=\"grid.png\"><a href=\"results.json\">results</a><a href=\"#top\">top</a>"
	base64 -d <<<"$PNG16" >"$dir/good/grid.png"
	echo '{}' >"$dir/good/results.json"
	mkdir -p "$dir/blank" && printf '<!doctype html><html><head><title>blank</title></head><body></body></html>\n' >"$dir/blank/report.html"
	mk one-colour '<style>body{color:#fff;background:#fff}</style>'
	mk missing-img '<img src="missing.png">'
	mk broken-data-uri '<img src="data:image/png;base64,AAAA">'
	mk broken-svg-image "$svg<image href=\"data:image/png;base64,AAAA\" width=\"16\" height=\"16\"/></svg>"
	mk missing-object '<object data="curve.svg" type="image/svg+xml"></object>'
	mk missing-link '<a href="samples.npy">samples</a>'
	mk network '<img src="http://example.invalid/x.png">'
	mk console-error '<script>console.error("x")</script>'
	mk console-warning '<script>console.warn("w")</script>'
	mk page-error '<script>throw new Error("boom")</script>'
	mk overflow '<div style="width:2000px">a wide block</div>'
	mk repeated-ticks "$badticks"
	mk uneven-ticks "$uneven"
	mk duplicate-legend "$dup"
	mkdir -p "$dir/no-report"

	# name, then a phrase the failure must contain ("" = must pass).
	local cases=(
		good ""
		blank "blank page: the body has no text"
		one-colour "blank page: the screenshot is a single colour"
		missing-img "refers to a missing file"
		broken-data-uri "<img src=\"data:image/png;base64,AAAA\"> did not load"
		broken-svg-image "<image> \"data:image/png;base64,AAAA\" did not load"
		missing-object "<object> \"curve.svg\" did not load"
		missing-link "<a href=\"samples.npy\"> refers to a missing file"
		network "loads from the network"
		console-error "console error: x"
		console-warning "console warning: w"
		page-error "page error: boom"
		overflow "horizontal overflow at 1400 px"
		repeated-ticks "tick labels 2, 2, 4 repeat"
		uneven-ticks "tick labels -8.2, -7.8, -7.2 do not match their positions"
		duplicate-legend 'legend label "ais (base-rate)" appears 2 times'
		no-report "report.html: no such file"
	)
	local bad=0 i name want out rc
	for ((i = 0; i < ${#cases[@]}; i += 2)); do
		name=${cases[i]} want=${cases[i + 1]}
		rc=0
		out=$("$here/check-report.sh" "$dir/$name" "$dir/$name.png" 2>&1) || rc=$?
		if [[ -z $want && $rc == 0 ]]; then
			echo "ok   $name passes:"
			sed 's/^/     /' <<<"$out"
		elif [[ -n $want && $rc != 0 && $out == *"$want"* ]]; then
			echo "ok   $name fails: $(grep -F -m1 -- "$want" <<<"$out" | sed 's/^ *- //')"
		else
			bad=1
			echo "FAIL $name: exit $rc, wanted $([[ -z $want ]] && echo "a pass" || echo "a failure saying '$want'"); output:"
			sed 's/^/     /' <<<"$out"
		fi
	done
	((bad == 0)) || die "self-test failed"
	echo "self-test passed: $((${#cases[@]} / 2)) pages"
}

case ${1:-} in
--self-test)
	(($# == 1)) || usage
	need_chromium
	need_playwright
	self_test
	;;
"" | -*) usage ;;
*)
	(($# <= 2)) || usage
	[[ -d $1 ]] || die "$1: no such run folder"
	[[ -f $1/report.html ]] || die "$1/report.html: no such file (is this a run folder written by logz run?)"
	shot=${2:-$(mktemp --suffix=.png "${TMPDIR:-/tmp}/logz-report.XXXXXX")}
	need_chromium
	need_playwright
	check "$1" "$shot"
	;;
esac
