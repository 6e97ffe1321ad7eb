package data

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	good := map[string]Spec{
		"mnist:train":          {Scheme: "mnist", Part: "train"},
		"mnist:test":           {Scheme: "mnist", Part: "test"},
		"fashion-mnist:test":   {Scheme: "fashion-mnist", Part: "test"},
		"planted:valid":        {Scheme: "planted", Part: "valid"},
		"digits:train-shifted": {Scheme: "digits", Part: "train-shifted"},
		"digits:test":          {Scheme: "digits", Part: "test"},
		"idx:/tmp/a:b.gz":      {Scheme: "idx", Path: "/tmp/a:b.gz"},
		"npy:rel/x.npy":        {Scheme: "npy", Path: "rel/x.npy"},
		"idx:C:\\data\\x.idx":  {Scheme: "idx", Path: "C:\\data\\x.idx"},
	}
	for s, want := range good {
		got, err := ParseSpec(s)
		if err != nil || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", s, got, err, want)
		}
		if got.String() != s {
			t.Errorf("%q: String() = %q", s, got.String())
		}
	}
	bad := map[string]string{
		"":               "has no scheme; accepted forms: " + SpecForms,
		"train":          `"train" has no scheme; accepted forms: mnist:train|test`,
		"mnist":          `data spec "mnist" lacks the split: which split? mnist:train or mnist:test`,
		"fashion-mnist":  `which split? fashion-mnist:train or fashion-mnist:test`,
		"planted":        `data spec "planted" lacks the split: which split? planted:train, planted:valid or planted:test`,
		"npy":            `data spec "npy" lacks the file; expected npy:PATH`,
		"idx":            `data spec "idx" lacks the file; expected idx:PATH`,
		"cifar:train":    `unknown scheme "cifar"; accepted forms: ` + SpecForms,
		"MNIST:train":    `unknown scheme "MNIST"`,
		"mnist:":         "lacks the split; expected mnist:train|test",
		"mnist:valid":    `unknown split "valid"; expected mnist:train|test`,
		"digits":         `data spec "digits" lacks the split: which split? digits:train, digits:train-shifted or digits:test`,
		"digits:shifted": `unknown split "shifted"; expected digits:train|train-shifted|test`,
		"fashion-mnist:": "expected fashion-mnist:train|test",
		"planted:dev":    "expected planted:train|valid|test",
		"idx:":           "lacks the file; expected idx:PATH",
		"npy:":           "expected npy:PATH",
	}
	for s, want := range bad {
		_, err := ParseSpec(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want error containing %q", s, err, want)
		}
	}
}

// fakeMNIST writes small train (raw) and test (gzip) image files into dir.
func fakeMNIST(t *testing.T, dir string, trainPix, testPix []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "train-images-idx3-ubyte"), makeIDX([]int{len(trainPix) / 4, 2, 2}, trainPix), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), gz(t, makeIDX([]int{len(testPix) / 4, 2, 2}, testPix)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadMNISTDirectories(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	t.Setenv(EnvFashionDir, "")
	root := t.TempDir()
	optDir, envDir, fashionDir := filepath.Join(root, "opt"), filepath.Join(root, "env"), filepath.Join(root, "fashion")
	fakeMNIST(t, optDir, []byte{0, 200, 100, 255, 129, 128, 0, 0}, []byte{255, 255, 0, 0})
	fakeMNIST(t, envDir, []byte{255, 255, 255, 255}, []byte{0, 0, 0, 0})
	fakeMNIST(t, fashionDir, []byte{0, 0, 255, 255}, []byte{0, 255, 0, 255})
	thr := Binarization{Method: Threshold}

	s, err := Load("mnist:train", Options{DataDir: optDir, Binarize: thr})
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "mnist:train" || s.N != 2 || s.D != 4 || !bytes.Equal(s.X, []uint8{0, 1, 0, 1, 1, 1, 0, 0}) {
		t.Fatalf("mnist:train from option: %+v", s)
	}
	s, err = Load("mnist:test", Options{DataDir: optDir, Binarize: thr}) // the .gz file
	if err != nil || !bytes.Equal(s.X, []uint8{1, 1, 0, 0}) {
		t.Fatalf("mnist:test (gzip): %+v %v", s, err)
	}
	// The environment variable is used when the option is empty.
	t.Setenv(EnvDataDir, envDir)
	s, err = Load("mnist:train", Options{Binarize: thr})
	if err != nil || !bytes.Equal(s.X, []uint8{1, 1, 1, 1}) {
		t.Fatalf("mnist:train from $%s: %+v %v", EnvDataDir, s, err)
	}
	// The option wins over the environment.
	s, _ = Load("mnist:train", Options{DataDir: optDir, Binarize: thr})
	if s.N != 2 {
		t.Fatal("the option did not override the environment")
	}
	// Fashion-MNIST has its own option and variable.
	s, err = Load("fashion-mnist:test", Options{FashionDir: fashionDir, Binarize: thr})
	if err != nil || !bytes.Equal(s.X, []uint8{0, 1, 0, 1}) || s.Name != "fashion-mnist:test" {
		t.Fatalf("fashion-mnist:test: %+v %v", s, err)
	}
	t.Setenv(EnvFashionDir, fashionDir)
	if s, err = Load("fashion-mnist:train", Options{Binarize: thr}); err != nil || !bytes.Equal(s.X, []uint8{0, 0, 1, 1}) {
		t.Fatalf("fashion-mnist:train from $%s: %+v %v", EnvFashionDir, s, err)
	}

	// Raw is preferred when both files exist.
	both := filepath.Join(root, "both")
	fakeMNIST(t, both, []byte{255, 0, 0, 0}, []byte{0, 0, 0, 0})
	if err := os.WriteFile(filepath.Join(both, "train-images-idx3-ubyte.gz"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load("mnist:train", Options{DataDir: both, Binarize: thr}); err != nil {
		t.Errorf("raw and gz present: %v", err)
	}

	// Missing files: say where we looked, where the directory came from, and what to do.
	empty := filepath.Join(root, "empty")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	_, err = Load("mnist:test", Options{DataDir: empty, Binarize: thr})
	for _, want := range []string{"mnist:test: no t10k-images-idx3-ubyte or t10k-images-idx3-ubyte.gz in " + empty, "the data directory option", "logz data get mnist (it fetches and verifies them into " + filepath.Join(cache, "logz", "mnist") + ")"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing MNIST: got %v, want it to contain %q", err, want)
		}
	}
	t.Setenv(EnvFashionDir, empty)
	_, err = Load("fashion-mnist:train", Options{Binarize: thr})
	for _, want := range []string{"train-images-idx3-ubyte", "$" + EnvFashionDir, "dataset-fashion-mnist"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing Fashion-MNIST: got %v, want it to contain %q", err, want)
		}
	}
	// A corrupt file is reported with its path.
	broken := filepath.Join(root, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(broken, "train-images-idx3-ubyte.gz")
	if err := os.WriteFile(bad, gz(t, makeIDX([]int{5, 2, 2}, seq(3))), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load("mnist:train", Options{DataDir: broken, Binarize: thr}); err == nil || !strings.Contains(err.Error(), bad+": truncated IDX data") {
		t.Errorf("truncated file: %v", err)
	}
}

// TestLoadDefaultMNISTDir: without an option or $LOGZ_DATA_DIR, MNIST is
// read from the per-user folder (<user cache>/logz/mnist), so a shipped
// config finds it from any folder — or from ./data/mnist when that folder
// exists, as in a clone whose scripts filled it.
func TestLoadDefaultMNISTDir(t *testing.T) {
	t.Setenv(EnvDataDir, "")
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	user := filepath.Join(cache, "logz", "mnist")
	wd := t.TempDir()
	t.Chdir(wd)
	_, err := Load("mnist:train", Options{Binarize: Binarization{Method: Threshold}})
	if err == nil || !strings.Contains(err.Error(), "in "+user+" (directory from the default)") {
		t.Errorf("got %v", err)
	}
	fakeMNIST(t, user, []byte{255, 0, 0, 0}, []byte{0, 0, 0, 0})
	if s, err := Load("mnist:train", Options{Binarize: Binarization{Method: Threshold}}); err != nil || s.N != 1 || s.Source.File != filepath.Join(user, "train-images-idx3-ubyte") {
		t.Errorf("per-user dir: %+v %v", s, err)
	}
	fakeMNIST(t, filepath.Join(wd, "data", "mnist"), []byte{255, 0, 0, 255}, []byte{0, 0, 0, 0})
	if s, err := Load("mnist:train", Options{Binarize: Binarization{Method: Threshold}}); err != nil || s.N != 1 || s.Source.File != filepath.Join(wd, "data", "mnist", "train-images-idx3-ubyte") {
		t.Errorf("./data/mnist: %+v %v", s, err)
	}
}

func TestLoadIDXAndBinarisation(t *testing.T) {
	dir := t.TempDir()
	pix := make([]byte, 400*4)
	for k := range pix {
		pix[k] = byte(64 + k%128)
	}
	a := filepath.Join(dir, "a.idx")
	if err := os.WriteFile(a, makeIDX([]int{400, 4}, pix), 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.idx")
	if err := os.WriteFile(b, makeIDX([]int{400, 4}, pix), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(spec string, bin Binarization) *Set {
		t.Helper()
		s, err := Load(spec, Options{Binarize: bin})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	st := Binarization{Method: Stochastic, Seed: 1}
	s1, s2 := load("idx:"+a, st), load("idx:"+a, st)
	if !bytes.Equal(s1.X, s2.X) || s1.Name != "idx:"+a {
		t.Error("stochastic binarisation is not reproducible")
	}
	if bytes.Equal(s1.X, load("idx:"+a, Binarization{Method: Stochastic, Seed: 2}).X) {
		t.Error("another seed gave the same bits")
	}
	// The stream depends on the spec, so two files (or train and test) get
	// independent draws even with identical pixels.
	if bytes.Equal(s1.X, load("idx:"+b, st).X) {
		t.Error("two specs share the stochastic stream")
	}
	// Threshold: zero means the default 0.5 (pixel ≥ 128); 0.7 → pixel ≥ 179.
	for _, c := range []struct {
		t   float64
		min byte
	}{{0, 128}, {0.7, 179}} {
		s := load("idx:"+a, Binarization{Method: Threshold, Threshold: c.t})
		for k, x := range s.X {
			if (x == 1) != (pix[k] >= c.min) {
				t.Fatalf("threshold %v: pixel %d gave %d", c.t, pix[k], x)
			}
		}
	}
	// Grey data needs a method.
	for _, bin := range []Binarization{{}, {Method: None}} {
		if _, err := Load("idx:"+a, Options{Binarize: bin}); err == nil || !strings.Contains(err.Error(), "idx:"+a) {
			t.Errorf("method %q on grey data: %v", bin.Method, err)
		}
	}
	if _, err := Load("idx:"+a, Options{Binarize: Binarization{Method: "median"}}); err == nil || !strings.Contains(err.Error(), `unknown binarisation method "median"`) {
		t.Errorf("bad method: %v", err)
	}
	if _, err := Load("idx:"+filepath.Join(dir, "none.idx"), Options{Binarize: st}); err == nil || !strings.Contains(err.Error(), "none.idx") {
		t.Errorf("missing idx: %v", err)
	}
}

func TestLoadBinarySources(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(p, npyBytes("<f8", false, []int{2, 2}, f64s(1, 0, 0, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	// Binary sources accept any valid method and are returned unchanged.
	for _, m := range []string{"", None, Threshold, Stochastic} {
		s, err := Load("npy:"+p, Options{Binarize: Binarization{Method: m}})
		if err != nil || !bytes.Equal(s.X, []uint8{1, 0, 0, 1}) || s.Name != "npy:"+p {
			t.Errorf("npy with %q: %+v %v", m, s, err)
		}
		s, err = Load("planted:test", Options{Binarize: Binarization{Method: m}, Planted: PlantedSpec{Test: 10}})
		if err != nil || s.N != 10 || s.D != 20 {
			t.Errorf("planted with %q: %+v %v", m, s, err)
		}
	}
	if _, err := Load("npy:"+p, Options{Binarize: Binarization{Method: "otsu"}}); err == nil {
		t.Error("npy with an unknown method: no error")
	}
	if _, err := Load("planted:train", Options{Planted: PlantedSpec{Hidden: -2}}); err == nil || !strings.Contains(err.Error(), "hidden is -2") {
		t.Errorf("bad planted spec: %v", err)
	}
	if _, err := Load("mnist:dev", Options{}); err == nil || !strings.Contains(err.Error(), "mnist:train|test") {
		t.Errorf("bad spec: %v", err)
	}
}

// TestLoadDigits: digits:SPLIT reads digits-SPLIT-images-idx3-ubyte (raw
// or .gz) from the option, else $LOGZ_DIGITS_DIR, else ./data/digits, and
// a missing file is an error saying where it looked and what to run (with
// --shifts for train-shifted). Mutation checked: reading the MNIST name
// train-images-idx3-ubyte for digits fails it.
func TestLoadDigits(t *testing.T) {
	thr := Binarization{Method: Threshold, Threshold: 0.5}
	dir := t.TempDir()
	write := func(name string, pix []byte, n int) {
		if err := os.WriteFile(filepath.Join(dir, name), makeIDX([]int{n, 2, 2}, pix), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("digits-train-images-idx3-ubyte", []byte{128, 0, 0, 255}, 1) // grey 8 of 16 → 128: kept by 0.5
	write("digits-train-shifted-images-idx3-ubyte", []byte{0, 128, 0, 255, 112, 0, 0, 0}, 2)
	if err := os.WriteFile(filepath.Join(dir, "digits-test-images-idx3-ubyte.gz"), gz(t, makeIDX([]int{1, 2, 2}, []byte{112, 255, 0, 0})), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvDigitsDir, "")
	for spec, want := range map[string][]uint8{
		"digits:train":         {1, 0, 0, 1},
		"digits:train-shifted": {0, 1, 0, 1, 0, 0, 0, 0},
		"digits:test":          {0, 1, 0, 0},
	} {
		s, err := Load(spec, Options{DigitsDir: dir, Binarize: thr})
		if err != nil || s.Name != spec || s.D != 4 || !bytes.Equal(s.X, want) {
			t.Errorf("%s: %+v, %v; want %v", spec, s, err, want)
		}
	}
	t.Setenv(EnvDigitsDir, dir)
	if s, err := Load("digits:train", Options{Binarize: thr}); err != nil || s.N != 1 {
		t.Errorf("digits:train from $%s: %+v %v", EnvDigitsDir, s, err)
	}
	empty := t.TempDir()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	user := filepath.Join(cache, "logz", "digits")
	_, err := Load("digits:train-shifted", Options{DigitsDir: empty, Binarize: thr})
	for _, want := range []string{"digits:train-shifted: no digits-train-shifted-images-idx3-ubyte or digits-train-shifted-images-idx3-ubyte.gz in " + empty, "the digits directory option", "logz data get digits --shifts (it writes " + user + ")"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing digits: got %v, want it to contain %q", err, want)
		}
	}
	t.Setenv(EnvDigitsDir, "")
	t.Chdir(t.TempDir())
	_, err = Load("digits:test", Options{Binarize: thr})
	for _, want := range []string{"in " + user + " (directory from the default)", "logz data get digits (it writes " + user + "),"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing digits in the default directory: got %v, want it to contain %q", err, want)
		}
	}
}
