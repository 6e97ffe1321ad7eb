package data

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// Published is a data set read from the files its authors publish (which
// logz data get NAME fetches), in their own formats: MATLAB .mat files,
// OCR letters' letter.data and Larochelle's .amat files.
type Published struct {
	// Scheme is the set's name in data specs and in logz data get.
	Scheme string
	// Title names it in messages.
	Title string
	// Parts are its splits, in order; Files the file of each split.
	Parts []string
	Files map[string]string
	// Env is the variable that names its directory; DefaultName the folder
	// under ./data or the per-user folder (see DefaultDir).
	Env, DefaultName string
	// Sizes are the examples of each split as published, checked on read
	// (and for OCR letters, where they are split, used to split the file).
	Sizes map[string]int
	// Grey: the files hold grey levels in [0, 1] (binarised as Options
	// say); otherwise 0/1 data, used as it is.
	Grey bool
	// D is the number of units of an example.
	D int
}

// The published sets. The sizes are those of the papers that use them:
// Omniglot as Burda et al. (2015) split it (chardata.mat: data and testdata),
// Caltech 101 Silhouettes 28×28 split 1 (Marlin et al. 2010), OCR letters
// as Salakhutdinov & Hinton (2012), Bornschein & Bengio (2015) and Du, Zhu &
// Zhang (2015) use them (the file's first 32,152 letters, the next 10,000,
// the last 10,000, as pylearn2 splits letter.data), binarised MNIST as
// Larochelle & Murray (2011) fixed it.
var publishedSets = []Published{
	{
		Scheme: "omniglot", Title: "Omniglot (chardata.mat)",
		Parts: []string{"train", "test"},
		Files: map[string]string{"train": OmniglotFile, "test": OmniglotFile},
		Env:   EnvOmniglotDir, DefaultName: "omniglot",
		Sizes: map[string]int{"train": 24345, "test": 8070},
		Grey:  true, D: 784,
	},
	{
		Scheme: "caltech-silhouettes", Title: "Caltech 101 Silhouettes",
		Parts: []string{"train", "valid", "test"},
		Files: map[string]string{"train": CaltechFile, "valid": CaltechFile, "test": CaltechFile},
		Env:   EnvCaltechDir, DefaultName: "caltech-silhouettes",
		Sizes: map[string]int{"train": 4100, "valid": 2264, "test": 2307},
		D:     784,
	},
	{
		Scheme: "ocr-letters", Title: "OCR letters",
		Parts: []string{"train", "valid", "test"},
		Files: map[string]string{"train": OCRFile, "valid": OCRFile, "test": OCRFile},
		Env:   EnvOCRDir, DefaultName: "ocr-letters",
		Sizes: map[string]int{"train": 32152, "valid": 10000, "test": 10000},
		D:     OCRPixels,
	},
	{
		Scheme: "binarized-mnist", Title: "binarised MNIST (Larochelle)",
		Parts: []string{"train", "valid", "test"},
		Files: map[string]string{"train": "binarized_mnist_train.amat", "valid": "binarized_mnist_valid.amat", "test": "binarized_mnist_test.amat"},
		Env:   EnvBinarizedMNISTDir, DefaultName: "binarized-mnist",
		Sizes: map[string]int{"train": 50000, "valid": 10000, "test": 10000},
		D:     784,
	},
}

// The files of the published sets and the variables that name their
// directories.
const (
	OmniglotFile         = "chardata.mat"
	CaltechFile          = "caltech101_silhouettes_28_split1.mat"
	OCRFile              = "letter.data"
	EnvOmniglotDir       = "LOGZ_OMNIGLOT_DIR"
	EnvCaltechDir        = "LOGZ_CALTECH_DIR"
	EnvOCRDir            = "LOGZ_OCR_DIR"
	EnvBinarizedMNISTDir = "LOGZ_BINARIZED_MNIST_DIR"
)

// PublishedSets returns the published sets (a copy).
func PublishedSets() []Published {
	out := make([]Published, len(publishedSets))
	copy(out, publishedSets)
	return out
}

// LookupPublished returns the published set of that scheme.
func LookupPublished(scheme string) (Published, bool) {
	for _, p := range publishedSets {
		if p.Scheme == scheme {
			return p, true
		}
	}
	return Published{}, false
}

// DefaultDir returns where the set is read from when neither the option
// nor its variable names a folder: ./data/NAME when that exists, else the
// per-user folder (see the function DefaultDir).
func (p Published) DefaultDir() string {
	return DefaultDir("data/"+p.DefaultName, p.DefaultName)
}

// findPublished returns the file of a published spec: in opt.DataDir when
// set, else in $Env, else in the default folder; raw or .gz.
func findPublished(p Published, sp Spec, opt Options) (string, error) {
	dir, from := opt.DataDir, "the data directory option"
	if dir == "" {
		dir, from = os.Getenv(p.Env), "$"+p.Env
	}
	if dir == "" {
		dir, from = p.DefaultDir(), "the default"
	}
	base := p.Files[sp.Part]
	hint := "run logz data get " + p.Scheme + " (it fetches the file into " + p.DefaultDir() + "), or point " + p.Env + " or the data directory option at a directory holding it"
	return findIn(sp, dir, from, base, hint)
}

// ReadPublished reads split part of the published set from path: 0/1
// data as a Set, grey levels (Omniglot) as Grey images. Images stored
// column-major (the .mat files, written by MATLAB) are transposed to
// row-major, as the papers' loaders do, so that rows of pixels are rows.
func ReadPublished(p Published, part, path string) (*Set, *Grey, error) {
	want, ok := p.Sizes[part]
	if !ok {
		return nil, nil, fmt.Errorf("%s has no split %q; expected %s", p.Scheme, part, strings.Join(p.Parts, ", "))
	}
	switch p.Scheme {
	case "omniglot":
		return readOmniglot(path, part, want)
	case "caltech-silhouettes":
		s, err := readCaltech(path, part, want)
		return s, nil, err
	case "ocr-letters":
		s, err := readOCRSplit(path, part, p)
		return s, nil, err
	case "binarized-mnist":
		s, err := ReadAMAT(path, p.D)
		if err == nil && s.N != want {
			err = fmt.Errorf("%s: %d examples; the %s split of %s has %d", path, s.N, part, p.Title, want)
		}
		return s, nil, err
	}
	return nil, nil, fmt.Errorf("no reader for %s", p.Scheme)
}

// readOmniglot reads Burda et al.'s chardata.mat: data (784×24,345) is the
// training set, testdata (784×8,070) the test set, one image per column,
// grey levels in [0, 1], stored as grey levels round(255·v) like the
// grey values of npy: files.
func readOmniglot(path, part string, want int) (*Set, *Grey, error) {
	name := "data"
	if part == "test" {
		name = "testdata"
	}
	vars, err := ReadMAT(path, name)
	if err != nil {
		return nil, nil, err
	}
	m := vars[name]
	if m.Rows != 784 {
		return nil, nil, fmt.Errorf("%s: variable %s is %d×%d; expected 784 rows (one 28×28 image per column)", path, name, m.Rows, m.Cols)
	}
	if m.Cols != want {
		return nil, nil, fmt.Errorf("%s: variable %s holds %d images; Omniglot's %s split has %d", path, name, m.Cols, part, want)
	}
	g := &Grey{Name: path, N: m.Cols, D: 784, Pix: make([]uint8, len(m.Data))}
	for n := range m.Cols {
		for k, v := range m.Data[n*784 : (n+1)*784] {
			if !(v >= 0 && v <= 1) {
				return nil, nil, fmt.Errorf("%s: variable %s, image %d, pixel %d is %v; expected a grey level in [0, 1]", path, name, n, k, v)
			}
			g.Pix[n*784+transposed28(k)] = uint8(math.Round(255 * v))
		}
	}
	return nil, g, nil
}

// transposed28 is where pixel k of a column-major 28×28 image goes in
// row-major order.
func transposed28(k int) int { return (k%28)*28 + k/28 }

// readCaltech reads Marlin's caltech101_silhouettes_28_split1.mat:
// train_data, val_data and test_data, one 0/1 image per row (N×784).
func readCaltech(path, part string, want int) (*Set, error) {
	name := map[string]string{"train": "train_data", "valid": "val_data", "test": "test_data"}[part]
	vars, err := ReadMAT(path, name)
	if err != nil {
		return nil, err
	}
	m := vars[name]
	if m.Cols != 784 {
		return nil, fmt.Errorf("%s: variable %s is %d×%d; expected 784 columns (one 28×28 image per row)", path, name, m.Rows, m.Cols)
	}
	if m.Rows != want {
		return nil, fmt.Errorf("%s: variable %s holds %d images; the %s split of Caltech 101 Silhouettes has %d", path, name, m.Rows, part, want)
	}
	s := &Set{Name: path, N: m.Rows, D: 784, X: make([]uint8, len(m.Data))}
	for k, v := range m.Data {
		n, p := k%m.Rows, k/m.Rows
		if v != 0 && v != 1 {
			return nil, fmt.Errorf("%s: variable %s, image %d, pixel %d is %v; expected 0 or 1", path, name, n, p, v)
		}
		s.X[n*784+transposed28(p)] = uint8(v)
	}
	return s, nil
}

// readOCRSplit reads letter.data and keeps the split: the first 32,152
// letters, the next 10,000 or the last 10,000, in the file's order.
func readOCRSplit(path, part string, p Published) (*Set, error) {
	all, _, err := ReadOCRLetters(path)
	if err != nil {
		return nil, err
	}
	total, start := 0, 0
	for _, q := range p.Parts {
		if q == part {
			start = total
		}
		total += p.Sizes[q]
	}
	if all.N != total {
		return nil, fmt.Errorf("%s: %d letters; the OCR letters splits (%d, %d, %d) need %d", path, all.N, p.Sizes["train"], p.Sizes["valid"], p.Sizes["test"], total)
	}
	n := p.Sizes[part]
	return &Set{Name: path, N: n, D: all.D, X: slices.Clone(all.X[start*all.D : (start+n)*all.D])}, nil
}
