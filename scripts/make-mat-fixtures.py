#!/usr/bin/env python3
"""Writes the MATLAB fixtures of data/testdata/ with SciPy's own writer.

Small stand-ins for the published files, in their layouts, so that the
data package's MATLAB v5 reader is checked against an independent writer:

  omniglot-v5.mat, omniglot-v7.mat   chardata.mat's layout: data (784x2) and
      testdata (784x1), one 28x28 image per column, grey levels in [0, 1];
      also target (a double matrix), a char array and a cell array, which
      the reader must skip. v5: uncompressed; v7: every variable
      zlib-compressed.
  caltech-v5.mat, caltech-v7.mat     caltech101_silhouettes_28_split1.mat's
      layout: train_data (3x784, double), val_data (2x784, uint8),
      test_data (1x784, bool, written as a logical uint8 array) and the
      labels, one image per row.
  types-v5.mat                       a 2x3 matrix in every numeric class
      (values k + 10*j, negative for the signed ones), a 1x1 double, a 1x2
      uint16 (4 bytes: a small data element), an empty 0x0 double, a 3-D array, a complex matrix.

The values are functions of the indices that data/mat_test.go recomputes:
    omniglot data[p, n]     = ((7*p + 13*n) % 256) / 255, except
    omniglot data[0, 0]     = 0.5 (rounds to grey level 128)
    omniglot testdata[p, 0] = ((3*p + 1) % 256) / 255
    caltech  X[n, p]        = (p + n) % 3 == 0   (train n, valid 10+n, test 20+n)
Run with /usr/bin/python3 (Debian: python3-scipy, python3-numpy):
    /usr/bin/python3 scripts/make-mat-fixtures.py
"""
import os
import numpy as np
import scipy.io

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "testdata")
os.makedirs(out, exist_ok=True)


def save(name, d, compress):
    scipy.io.savemat(os.path.join(out, name), d, format="5", do_compression=compress, oned_as="column")


p = np.arange(784)[:, None]
data = ((7 * p + 13 * np.arange(2)[None, :]) % 256) / 255.0
data[0, 0] = 0.5
testdata = ((3 * p + 1) % 256) / 255.0
omni = {
    "data": data,
    "testdata": testdata,
    "target": np.array([[1.0, 0.0], [0.0, 1.0]]),
    "alphabet": "Latin",
    "names": np.array([["a", "bb"]], dtype=object),
}
save("omniglot-v5.mat", omni, False)
save("omniglot-v7.mat", omni, True)


def sil(n, off):
    k = np.arange(784)[None, :] + np.arange(n)[:, None] + off
    return k % 3 == 0


cal = {
    "train_data": sil(3, 0).astype(np.float64),
    "val_data": sil(2, 10).astype(np.uint8),
    "test_data": sil(1, 20),
    "train_labels": np.array([[1], [2], [3]], dtype=np.float64),
    "classnames": np.array(["Faces", "airplanes"], dtype=object),
}
save("caltech-v5.mat", cal, False)
save("caltech-v7.mat", cal, True)

k = np.arange(2)[:, None] + 10 * np.arange(3)[None, :]
types = {}
for t in ["float64", "float32", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    v = k.astype(t)
    if t.startswith("int"):
        v = -v
    types["m_" + t] = v
types["one"] = np.array([[2.5]])
types["tiny"] = np.array([[7, 9]], dtype=np.uint16)
types["empty"] = np.zeros((0, 0))
types["cube"] = np.zeros((2, 2, 2))
types["cplx"] = np.array([[1 + 2j]])
save("types-v5.mat", types, False)

for f in sorted(os.listdir(out)):
    if f.endswith(".mat"):
        print(f, os.path.getsize(os.path.join(out, f)))
