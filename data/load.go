package data

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/logz-ml/logz/internal/regfile"
)

// Default directories and the environment variables that override them.
const (
	DefaultMNISTDir   = "data/mnist" // relative to the working directory; see DefaultDir
	DefaultFashionDir = "/usr/share/datasets/fashion-mnist"
	DefaultDigitsDir  = "data/digits"      // relative to the working directory
	EnvDataDir        = "LOGZ_DATA_DIR"    // MNIST directory
	EnvFashionDir     = "LOGZ_FASHION_DIR" // Fashion-MNIST directory
	EnvDigitsDir      = "LOGZ_DIGITS_DIR"  // UCI digits directory
)

// SpecForms lists the accepted data spec forms, for messages and help.
const SpecForms = "mnist:train|test, fashion-mnist:train|test, digits:train|train-shifted|test, omniglot:train|test, caltech-silhouettes:train|valid|test, ocr-letters:train|valid|test, binarized-mnist:train|valid|test, idx:PATH, npy:PATH, planted:train|valid|test"

// Spec is a parsed data spec string.
type Spec struct {
	Scheme string // "mnist", "fashion-mnist", "digits", a published set (omniglot, …), "idx", "npy" or "planted"
	Part   string // the split for mnist, fashion-mnist, digits, the published sets and planted
	Path   string // the file for idx and npy
}

// String returns the canonical spec string.
func (s Spec) String() string {
	if s.Path != "" {
		return s.Scheme + ":" + s.Path
	}
	return s.Scheme + ":" + s.Part
}

// ParseSpec parses a data spec:
//
//	mnist:train | mnist:test                  MNIST IDX files (see Load for the directory)
//	fashion-mnist:train | fashion-mnist:test  Fashion-MNIST IDX files
//	digits:train | digits:train-shifted | digits:test  UCI digits IDX files (logz data get digits)
//	idx:PATH                                  an IDX file of images, raw or gzip
//	npy:PATH                                  an N×D .npy array of 0/1 values
//	planted:train | planted:valid | planted:test  synthetic data from a planted RBM
//	omniglot:train | omniglot:test            Burda et al.'s Omniglot, chardata.mat (grey)
//	caltech-silhouettes:train|valid|test      Caltech 101 Silhouettes 28×28, split 1 (0/1)
//	ocr-letters:train|valid|test              OCR letters, letter.data (0/1, 16×8)
//	binarized-mnist:train|valid|test          Larochelle's fixed binarisation of MNIST (0/1)
//
// It checks the form only, not that files exist.
func ParseSpec(spec string) (Spec, error) {
	scheme, rest, ok := strings.Cut(spec, ":")
	if p, known := LookupPublished(scheme); known && (!ok || rest == "") {
		return Spec{}, fmt.Errorf("data spec %q lacks the split: which split? %s:%s", spec, scheme, strings.Join(p.Parts, "|"))
	}
	if !ok {
		switch spec {
		case "mnist", "fashion-mnist":
			return Spec{}, fmt.Errorf("data spec %q lacks the split: which split? %s:train or %s:test", spec, spec, spec)
		case "digits":
			return Spec{}, fmt.Errorf("data spec %q lacks the split: which split? digits:train, digits:train-shifted or digits:test", spec)
		case "planted":
			return Spec{}, fmt.Errorf("data spec %q lacks the split: which split? planted:train, planted:valid or planted:test", spec)
		case "idx", "npy":
			return Spec{}, fmt.Errorf("data spec %q lacks the file; expected %s:PATH", spec, spec)
		}
		return Spec{}, fmt.Errorf("data spec %q has no scheme; accepted forms: %s", spec, SpecForms)
	}
	split := func(parts ...string) (Spec, error) {
		for _, p := range parts {
			if rest == p {
				return Spec{Scheme: scheme, Part: rest}, nil
			}
		}
		if rest == "" {
			return Spec{}, fmt.Errorf("data spec %q lacks the split; expected %s:%s", spec, scheme, strings.Join(parts, "|"))
		}
		return Spec{}, fmt.Errorf("data spec %q: unknown split %q; expected %s:%s", spec, rest, scheme, strings.Join(parts, "|"))
	}
	switch scheme {
	case "mnist", "fashion-mnist":
		return split("train", "test")
	case "digits":
		return split("train", "train-shifted", "test")
	case "planted":
		return split("train", "valid", "test")
	case "idx", "npy":
		if rest == "" {
			return Spec{}, fmt.Errorf("data spec %q lacks the file; expected %s:PATH", spec, scheme)
		}
		return Spec{Scheme: scheme, Path: rest}, nil
	}
	if p, known := LookupPublished(scheme); known {
		return split(p.Parts...)
	}
	return Spec{}, fmt.Errorf("data spec %q: unknown scheme %q; accepted forms: %s", spec, scheme, SpecForms)
}

// Options says where Load finds files and how it binarises them.
type Options struct {
	// DataDir is the MNIST directory; "" means $LOGZ_DATA_DIR, else
	// ./data/mnist. When set, it is also the directory of the published
	// sets (omniglot, caltech-silhouettes, ocr-letters, binarized-mnist),
	// which otherwise come from their own variables (LOGZ_OMNIGLOT_DIR, …)
	// or ./data/NAME or the per-user folder (see Published.DefaultDir).
	DataDir string
	// FashionDir is the Fashion-MNIST directory; "" means $LOGZ_FASHION_DIR,
	// else /usr/share/datasets/fashion-mnist (Debian package
	// dataset-fashion-mnist).
	FashionDir string
	// DigitsDir is the directory of the UCI digits IDX files that
	// logz data get digits writes; "" means $LOGZ_DIGITS_DIR, else
	// ./data/digits.
	DigitsDir string
	// Binarize is required for grey images (mnist, fashion-mnist, idx);
	// binary sources (npy, planted) accept any valid method and are
	// returned unchanged (0 and 1 are fixed points of every method).
	Binarize Binarization
	// Planted describes planted:… data.
	Planted PlantedSpec
}

// Load reads the data named by spec (see ParseSpec) and returns it as
// binary data named by the spec string.
//
// mnist:SPLIT reads train-images-idx3-ubyte or t10k-images-idx3-ubyte, raw or
// with a .gz suffix (raw preferred when both exist), from the MNIST directory;
// fashion-mnist:SPLIT reads the same names from the Fashion-MNIST directory;
// digits:SPLIT reads digits-SPLIT-images-idx3-ubyte from the digits directory
// (see Options). Grey images are binarised as Options.Binarize says, with the
// stochastic generator rand.NewPCG(Seed, FNV-1a-64(spec)).
func Load(spec string, opt Options) (*Set, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	if err := opt.Binarize.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", spec, err)
	}
	var g *Grey
	var labels []uint8
	switch sp.Scheme {
	case "planted":
		s, err := Planted(opt.Planted, sp.Part)
		if err != nil {
			return nil, err
		}
		s.Source = Provenance{Spec: spec}
		return s, nil
	}
	path := sp.Path
	if p, ok := LookupPublished(sp.Scheme); ok {
		if path, err = findPublished(p, sp, opt); err != nil {
			return nil, err
		}
		var s *Set
		if s, g, err = ReadPublished(p, sp.Part, path); err != nil {
			return nil, err
		}
		if s != nil { // 0/1 data, used as it is
			s.Name = spec
			s.Source = Provenance{Spec: spec, File: absPath(path)}
			return s, nil
		}
		sp.Scheme = "published" // binarised below
	}
	switch sp.Scheme {
	case "published":
	case "npy":
		var s *Set
		if s, g, err = ReadNPYAny(path); err != nil {
			return nil, err
		}
		if s != nil { // 0/1 data, used as it is
			s.Name = spec
			s.Source = Provenance{Spec: spec, File: absPath(path)}
			return s, nil
		}
	case "idx":
		if g, err = ReadImages(path); err != nil {
			return nil, err
		}
		// Labels beside it, as for mnist: (what evaluate.by_label and
		// logz eval --by-label accept idx: images for).
		if labels, err = readLabelsBeside(path, g.N); err != nil {
			return nil, err
		}
	default:
		if path, err = findImages(sp, opt); err != nil {
			return nil, err
		}
		if g, err = ReadImages(path); err != nil {
			return nil, err
		}
		if labels, err = readLabelsBeside(path, g.N); err != nil {
			return nil, err
		}
	}
	g.Name = spec
	b := opt.Binarize
	var rng *rand.Rand
	src := Provenance{Spec: spec, File: absPath(path), Binarize: b.Method}
	switch b.Method {
	case Stochastic:
		h := fnv.New64a()
		h.Write([]byte(spec))
		rng = rand.New(rand.NewPCG(b.Seed, h.Sum64()))
		src.BinarizeSeed = b.Seed
	case Threshold:
		src.Threshold = b.threshold()
	default:
		src.Binarize = ""
	}
	s, err := g.Binarize(b.Method, b.threshold(), rng)
	if err != nil {
		return nil, err
	}
	s.Source = src
	s.Labels = labels
	return s, nil
}

// readLabelsBeside reads the labels of the IDX images file path: the
// file of the same name with "images-idx3" replaced by "labels-idx1"
// (train-labels-idx1-ubyte, raw or .gz, beside train-images-idx3-ubyte[.gz]).
// No such file: nil labels and no error; a file of other than n labels is
// an error.
func readLabelsBeside(path string, n int) ([]uint8, error) {
	dir, base := filepath.Split(path)
	if !strings.Contains(base, "images-idx3") {
		return nil, nil
	}
	name := strings.TrimSuffix(strings.Replace(base, "images-idx3", "labels-idx1", 1), ".gz")
	lp := ""
	for _, c := range []string{name, name + ".gz"} {
		if st, err := os.Stat(filepath.Join(dir, c)); err == nil && st.Mode().IsRegular() {
			lp = filepath.Join(dir, c)
			break
		}
	}
	if lp == "" {
		return nil, nil
	}
	l, err := ReadLabels(lp)
	if err != nil {
		return nil, err
	}
	if len(l) != n {
		return nil, fmt.Errorf("%s: %d labels for the %d images of %s", lp, len(l), n, path)
	}
	return l, nil
}

// absPath returns path made absolute, or path itself when that fails.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// Find checks, without reading it, that the file the data spec names is
// there and is a regular file, and returns its path ("" for planted data,
// which has no file). A run calls it for every data key before it makes its
// run folder, so a missing file is reported before anything is written.
func Find(spec string, opt Options) (string, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return "", err
	}
	if p, ok := LookupPublished(sp.Scheme); ok {
		return findPublished(p, sp, opt)
	}
	switch sp.Scheme {
	case "planted":
		return "", nil
	case "npy", "idx":
		if _, err := regfile.Stat(sp.Path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: no such file %s", spec, sp.Path)
			}
			return "", err
		}
		return sp.Path, nil
	}
	return findImages(sp, opt)
}

// DefaultDir returns the folder a data set is read from (and `logz data
// get` fills) when neither its option nor its environment variable names
// one: local, relative to the working directory, when that folder exists
// there (a clone whose scripts filled ./data/mnist), else the per-user
// folder UserDir(name), so that a shipped config finds its data from any
// folder.
func DefaultDir(local, name string) string {
	if st, err := os.Stat(local); err == nil && st.IsDir() {
		return local
	}
	if u := UserDir(name); u != "" {
		return u
	}
	return local
}

// UserDir is the per-user folder of data set name,
// <user cache folder>/logz/<name> (e.g. ~/.cache/logz/mnist on Linux), or
// "" when the system names no user cache folder.
func UserDir(name string) string {
	c, err := os.UserCacheDir()
	if err != nil || c == "" {
		return ""
	}
	return filepath.Join(c, "logz", name)
}

// findImages returns the image file of an mnist or fashion-mnist spec.
func findImages(sp Spec, opt Options) (string, error) {
	dir, from := opt.DataDir, "the data directory option"
	env, def := EnvDataDir, DefaultDir(DefaultMNISTDir, "mnist")
	hint := "run logz data get mnist (it fetches and verifies them into " + def + "), or point " + EnvDataDir + " or the data directory option at a directory holding the IDX files"
	base := "train-images-idx3-ubyte"
	if sp.Part == "test" {
		base = "t10k-images-idx3-ubyte"
	}
	switch sp.Scheme {
	case "fashion-mnist":
		dir, from = opt.FashionDir, "the Fashion-MNIST directory option"
		env, def = EnvFashionDir, DefaultFashionDir
		hint = "run logz data get fashion-mnist (as root it installs the Debian package dataset-fashion-mnist if no download works; with --dir DIR it writes DIR), or point " + EnvFashionDir + " at a directory holding the IDX files"
	case "digits":
		dir, from = opt.DigitsDir, "the digits directory option"
		env, def = EnvDigitsDir, DefaultDir(DefaultDigitsDir, "digits")
		base = "digits-" + sp.Part + "-images-idx3-ubyte"
		flag := ""
		if sp.Part == "train-shifted" {
			flag = " --shifts"
		}
		hint = "run logz data get digits" + flag + " (it writes " + def + "), or point " + EnvDigitsDir + " at the directory it wrote"
	}
	if dir == "" {
		dir, from = os.Getenv(env), "$"+env
	}
	if dir == "" {
		dir, from = def, "the default"
	}
	return findIn(sp, dir, from, base, hint)
}

// findIn returns the file base, raw or .gz, of dir (which came from
// from), or an error that ends with hint when it is not there.
func findIn(sp Spec, dir, from, base, hint string) (string, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		what, who := fmt.Sprintf("%s (%s)", dir, from), "it"
		if env, ok := strings.CutPrefix(from, "$"); ok {
			what, who = env+"="+dir, env
		}
		return "", fmt.Errorf("%s: %s is not a directory (it is %s); %s must be a directory holding %s or %s.gz",
			sp, what, regfile.Kind(st.Mode()), who, base, base)
	}
	for _, name := range []string{base, base + ".gz"} {
		p := filepath.Join(dir, name)
		st, err := os.Stat(p)
		if err == nil {
			if !st.Mode().IsRegular() {
				return "", fmt.Errorf("%s: %s is not a regular file (it is %s)", sp, p, regfile.Kind(st.Mode()))
			}
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", sp, err)
		}
	}
	return "", fmt.Errorf("%s: no %s or %s.gz in %s (directory from %s); %s", sp, base, base, dir, from, hint)
}
