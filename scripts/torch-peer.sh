# Sourced by the bench scripts that time a PyTorch peer (bench-sbn.sh,
# bench-vae.sh): sets PY to /usr/bin/python3 and makes sure it has torch
# and numpy, and that PyTorch's Debian build, which takes its matrix
# products from the system BLAS, has OpenBLAS: on the reference BLAS the
# peer runs several times slower than the obvious script does anywhere
# else. As root it installs what is missing with apt-get; otherwise it
# stops, or warns when only OpenBLAS is missing. $1 names the caller in
# the messages.
PY=/usr/bin/python3
BLAS=/usr/lib/$(uname -m)-linux-gnu/libopenblas.so.0
need=
$PY -c 'import torch, numpy' 2>/dev/null || need="python3-torch python3-numpy"
[ -e "$BLAS" ] || need="$need libopenblas0-pthread"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -q $need >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null; }
	elif ! $PY -c 'import torch, numpy' 2>/dev/null; then
		echo "$1: needs python3-torch and python3-numpy (apt-get install python3-torch python3-numpy libopenblas0-pthread)" >&2; exit 1
	else
		echo "$1: no OpenBLAS ($BLAS): PyTorch's products run on the system's reference BLAS, and its time says little" >&2
	fi
fi
