package datafetch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logz-ml/logz/data"
)

// tofuServer serves *body under any name ending in chardata.mat (gzip'ed
// when gzipped), counting requests.
func tofuServer(t *testing.T, body *[]byte, gzipped bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if !strings.Contains(r.URL.Path, "chardata.mat") {
			http.NotFound(w, r)
			return
		}
		if gzipped {
			w.Write(gz(t, *body))
			return
		}
		w.Write(*body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// tofuSet is a set of one file with no published sum.
func tofuSet(dir, url string) Set {
	return Set{
		Name: "toy-unpublished", Title: "Toy", Files: []File{{Name: "chardata.mat"}},
		DefaultDir: dir, Env: "LOGZ_TOY_DIR_FOR_TESTS",
		Sources: []Source{{Kind: HTTP, URL: url}}, Manual: "chardata.mat from https://toy.example/",
	}
}

// TestTrustOnFirstUse: a file with no published sum is fetched, its sum
// printed and recorded beside it; the next Get checks the file against the
// record without fetching; a copy that changed is removed and fetched
// again, and a source that now serves other content is refused with the
// recorded sum; a record that is not one is an error saying what to do.
func TestTrustOnFirstUse(t *testing.T) {
	body := []byte("first copy of chardata.mat")
	srv, hits := tofuServer(t, &body, false)
	dir := filepath.Join(t.TempDir(), "omni")
	set := tofuSet(dir, srv.URL+"/")
	var log bytes.Buffer
	res, err := Get(context.Background(), set, Options{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256Hex(body)
	rec := filepath.Join(dir, "chardata.mat"+RecordSuffix)
	if b, err := os.ReadFile(rec); err != nil || string(b) != sum+"  chardata.mat\n" {
		t.Fatalf("record %q, %v", b, err)
	}
	if !strings.Contains(log.String(), "chardata.mat has no published SHA-256; its SHA-256 (of the uncompressed content) is\n    "+sum) ||
		!strings.Contains(log.String(), "trust on first use") || res.Already {
		t.Errorf("log:\n%s", log.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "chardata.mat")); !bytes.Equal(b, body) {
		t.Errorf("stored %q", b)
	}

	// Again: checked against the record, nothing fetched.
	n := hits.Load()
	if res, err := Get(context.Background(), set, Options{}); err != nil || !res.Already || hits.Load() != n {
		t.Fatalf("second Get: %+v, %v, %d requests", res, err, hits.Load()-n)
	}

	// The stored copy changed: removed, fetched again, checked.
	os.WriteFile(filepath.Join(dir, "chardata.mat"), []byte("tampered"), 0o644)
	log.Reset()
	if _, err := Get(context.Background(), set, Options{Log: &log}); err != nil || !strings.Contains(log.String(), "recorded in chardata.mat.sha256 when it was first fetched; delete that record to accept another copy); removing it") {
		t.Fatalf("tampered copy: %v\n%s", err, log.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "chardata.mat")); !bytes.Equal(b, body) {
		t.Errorf("stored %q after the tampered copy", b)
	}

	// The source now serves other content: refused, not kept.
	os.Remove(filepath.Join(dir, "chardata.mat"))
	body = []byte("another copy")
	_, err = Get(context.Background(), set, Options{})
	var ue *UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "expected "+sum+", the sum recorded in chardata.mat.sha256 when it was first fetched; not kept") {
		t.Fatalf("other content: %v", err)
	}
	if names := dirNames(t, dir); len(names) != 1 || names[0] != "chardata.mat.sha256" {
		t.Errorf("folder holds %v", names)
	}

	// A broken record.
	os.WriteFile(rec, []byte("not a sum\n"), 0o644)
	if _, err := Get(context.Background(), set, Options{}); err == nil || !strings.Contains(err.Error(), "is not a record of chardata.mat's SHA-256") {
		t.Errorf("broken record: %v", err)
	}
}

// TestTrustOnFirstUseFound: a copy put there by hand (gzip'ed, say) with
// no record is trusted and recorded without fetching anything.
func TestTrustOnFirstUseFound(t *testing.T) {
	body := []byte("a copy downloaded by hand")
	srv, hits := tofuServer(t, &body, true)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "chardata.mat.gz"), gz(t, body), 0o644)
	var log bytes.Buffer
	res, err := Get(context.Background(), tofuSet(dir, srv.URL+"/"), Options{Log: &log})
	if err != nil || !res.Already || hits.Load() != 0 {
		t.Fatalf("%+v, %v, %d requests", res, err, hits.Load())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "chardata.mat.sha256")); err != nil || string(b) != sha256Hex(body)+"  chardata.mat\n" {
		t.Errorf("record %q, %v\n%s", b, err, log.String())
	}
}

// TestPublishedSetsMatchData: each published set is fetched into the
// folder, and under the names, that the data package reads, and
// binarised MNIST's sums are the published ones.
func TestPublishedSetsMatchData(t *testing.T) {
	for _, p := range data.PublishedSets() {
		s, err := Lookup(p.Scheme)
		if err != nil {
			t.Fatal(err)
		}
		if s.Env != p.Env || s.DefaultDir != p.DefaultDir() {
			t.Errorf("%s: fetched into $%s or %s; read from $%s or %s", p.Scheme, s.Env, s.DefaultDir, p.Env, p.DefaultDir())
		}
		names := map[string]bool{}
		for _, f := range s.Files {
			names[f.Name] = true
		}
		for _, part := range p.Parts {
			if !names[p.Files[part]] {
				t.Errorf("%s: %s is read but not fetched", p.Scheme, p.Files[part])
			}
		}
		if len(names) > len(p.Parts) {
			t.Errorf("%s: fetches %v", p.Scheme, names)
		}
	}
	s, _ := Lookup("binarized-mnist")
	for _, f := range s.Files {
		if f.SHA256 == "" {
			t.Errorf("binarized-mnist: %s has no sum", f.Name)
		}
	}
}
