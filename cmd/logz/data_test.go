package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/datafetch"
)

// TestDataHelp: `logz data --help` and `logz help data` print the same
// text, which names every set's sources, and the overview of `logz help`
// lists every flag that text documents. Mutation: leaving --any-checksum
// out of mainUsage fails it.
func TestDataHelp(t *testing.T) {
	var a, b, overview bytes.Buffer
	if err := run([]string{"data", "--help"}, &a, &a); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"help", "data"}, &b, &b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "Usage: logz data get NAME") {
		t.Fatalf("logz data --help:\n%s\nlogz help data:\n%s", a.String(), b.String())
	}
	for _, s := range datafetch.Sets() {
		for _, src := range s.Sources {
			if !strings.Contains(a.String(), describeSource(src)) {
				t.Errorf("logz data --help does not list %s's source %s", s.Name, src)
			}
		}
	}
	if err := run([]string{"help"}, &overview, &overview); err != nil {
		t.Fatal(err)
	}
	text := ""
	for _, l := range strings.Split(overview.String(), "\n") {
		if strings.HasPrefix(l, "  logz data ") {
			text = l
		} else if text != "" && strings.HasPrefix(l, "   ") {
			text += "\n" + l
		} else if text != "" {
			break
		}
	}
	flags := regexp.MustCompile(`(?m)^  (--[a-z-]+)`).FindAllStringSubmatch(a.String(), -1)
	if text == "" || len(flags) < 4 {
		t.Fatalf("logz help has no data line (%q) or logz data --help lists %d flags", text, len(flags))
	}
	for _, f := range flags {
		if !strings.Contains(text, f[1]) {
			t.Errorf("logz help does not list %s of logz data get:\n%s", f[1], text)
		}
	}
}

// TestDataUsageErrors: mistakes on the command line are usage errors
// (status 2) that say what is wrong.
func TestDataUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"data"}, "data: which action? logz data get NAME"},
		{[]string{"data", "fetch", "mnist"}, `data: unknown action "fetch"`},
		{[]string{"data", "get"}, "data get: want one data set (binarized-mnist, caltech-silhouettes, digits, fashion-mnist, mnist, ocr-letters, omniglot), got 0 arguments"},
		{[]string{"data", "get", "mnist", "digits"}, "got 2 arguments"},
		{[]string{"data", "get", "cifar"}, `data get: unknown data set "cifar"; known: binarized-mnist, caltech-silhouettes, digits, fashion-mnist, mnist, ocr-letters, omniglot`},
		{[]string{"data", "get", "mnist", "--shifts"}, "data get: --shifts is a flag of digits only, not of mnist"},
		{[]string{"data", "get", "fashion-mnist", "--csv", "x.csv"}, "--csv is a flag of digits only"},
		{[]string{"data", "get", "mnist", "--dir", ""}, `data get: --dir "" names no file or folder; give a path, or leave --dir out for the default`},
		{[]string{"data", "get", "mnist", "--dir", "  "}, `data get: --dir "  " names no file or folder`},
		{[]string{"data", "get", " "}, `data get: argument 1 is empty (" ")`},
		{[]string{"data", "get", "digits", "--csv", " "}, `data get: --csv " " names no file`},
		{[]string{"data", "get", "mnist", "--bogus"}, "data get: flag provided but not defined: -bogus (see 'logz data get --help')"},
	} {
		var out bytes.Buffer
		err := run(c.args, &out, &out)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("logz %s: %v (%T), want a usage error containing %q", strings.Join(c.args, " "), err, err, c.want)
		}
	}
}

// TestDataGet: `logz data get` with a set whose source is a local server
// fetches, says where the files are and which variable to set, does
// nothing the second time and says so; with the server gone it fails
// (status 1, not a usage error) saying what to download and where to put
// it. Mutation: cmdDataGet not printing FindHint fails it.
func TestDataGet(t *testing.T) {
	content := []byte{0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3}
	sum := sha256.Sum256(content)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(content)
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/toy-labels.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(z.Bytes())
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + l.Addr().String() + "/"
	l.Close()
	t.Setenv("PATH", t.TempDir()) // no npm or apt-get to fall back on
	t.Setenv("LOGZ_TOY_FOR_TESTS", "")
	src := datafetch.Source{Kind: datafetch.HTTP, URL: srv.URL + "/", Suffix: ".gz"}
	set := datafetch.Set{
		Name: "toy", Title: "Toy", Files: []datafetch.File{{Name: "toy-labels", SHA256: hex.EncodeToString(sum[:])}},
		DefaultDir: filepath.Join(t.TempDir(), "default"), Env: "LOGZ_TOY_FOR_TESTS",
		Sources: []datafetch.Source{{Kind: datafetch.HTTP, URL: down, Suffix: ".gz"}, src},
		Manual:  "toy-labels.gz from https://toy.example/",
	}
	old := lookupDataSet
	defer func() { lookupDataSet = old }()
	lookupDataSet = func(name string) (datafetch.Set, error) {
		if name != "toy" {
			return old(name)
		}
		return set, nil
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run([]string{"data", "get", "toy", "--dir", dir}, &out, &out); err != nil {
		t.Fatalf("logz data get: %v\n%s", err, out.String())
	}
	for _, want := range []string{down + ": unreachable", "Toy ready in " + dir, "Toy is in " + dir, "export LOGZ_TOY_FOR_TESTS=" + dir} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output does not say %q:\n%s", want, out.String())
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "toy-labels.gz")); err != nil || !bytes.Equal(b, z.Bytes()) {
		t.Fatalf("toy-labels.gz: %v", err)
	}
	out.Reset()
	if err := run([]string{"data", "get", "toy", "--dir", dir}, &out, &out); err != nil || !strings.Contains(out.String(), "Toy already present and verified in "+dir) {
		t.Fatalf("second run: %v\n%s", err, out.String())
	}

	set.Sources = set.Sources[:1] // only the port that is down
	out.Reset()
	empty := t.TempDir()
	err = run([]string{"data", "get", "toy", "--dir", empty}, &out, &out)
	var ue usageError
	if err == nil || errors.As(err, &ue) {
		t.Fatalf("nothing reachable: %v (%T), want a failure that is not a usage error", err, err)
	}
	for _, want := range []string{"could not get toy-labels into " + empty, "By hand: download toy-labels.gz from https://toy.example/ into " + empty, "export LOGZ_TOY_FOR_TESTS=" + empty} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
}
