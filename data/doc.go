// Package data loads the binary data sets of logz and turns grey images into
// 0/1 data explicitly.
//
// A data set is named by a spec string (see ParseSpec and Load):
//
//	mnist:train|test           MNIST IDX files from Options.DataDir, $LOGZ_DATA_DIR or ./data/mnist
//	fashion-mnist:train|test   the same file names from Options.FashionDir, $LOGZ_FASHION_DIR or
//	                           /usr/share/datasets/fashion-mnist (Debian package dataset-fashion-mnist)
//	digits:train|train-shifted|test  the UCI digits (8×8) that logz data get digits writes,
//	                           from Options.DigitsDir, $LOGZ_DIGITS_DIR or ./data/digits
//	omniglot:train|test        Burda et al.'s Omniglot (chardata.mat, MATLAB; grey, 28×28)
//	caltech-silhouettes:train|valid|test  Caltech 101 Silhouettes 28×28, split 1 (MATLAB; 0/1)
//	ocr-letters:train|valid|test  Taskar's OCR letters (letter.data; 0/1, 16×8), split 32,152/10,000/10,000
//	binarized-mnist:train|valid|test  Larochelle's fixed binarisation of MNIST (.amat; 0/1)
//	                           (the published sets: logz data get NAME fetches them; see Published)
//	idx:PATH                   an IDX file of unsigned-byte images (N×rows×cols or N×D), raw or gzip
//	npy:PATH                   an N×D .npy array of 0/1 values (bool, integer, float32 or float64)
//	planted:train|valid|test   synthetic data drawn exactly from a small planted model (no files)
//
// Grey images are binarised by an explicit method: Stochastic (pixel/255 is
// the probability of a 1, drawn from a seeded generator, as in Salakhutdinov
// & Murray 2008), Threshold (pixel/255 > t) or None (data already 0/1).
//
// A Set is the Examples that trainers and estimators read. The planted
// models are the RBM and the Ising grid of this package and those a model's
// own package registers (RegisterPlanted), so data imports nothing above
// models and internal packages.
//
// Every reader is strict: a malformed, truncated or oversized file, trailing
// bytes or a corrupt gzip stream is an error naming the file, never a panic.
// Randomness comes only from an explicit *rand.Rand (math/rand/v2).
package data
