package datafetch

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/logz-ml/logz/internal/atomicfile"
)

// MaxFileBytes bounds what is read for one file (compressed or not, and
// uncompressed): 1 GiB, 20 times MNIST's largest file, so that a broken
// server or a gzip bomb cannot fill the disk.
const MaxFileBytes = 1 << 30

// DefaultTimeout bounds the whole of one Get: connecting, downloading and
// the package tools.
const DefaultTimeout = 15 * time.Minute

// DefaultStallTimeout bounds the wait for the next bytes of a download
// (or for its response) before the source is given up as stalled.
const DefaultStallTimeout = time.Minute

// Options says where Get writes and how it talks.
type Options struct {
	// Dir is the directory to fill; "" means $Env of the set, else its
	// DefaultDir (where logz looks).
	Dir string
	// Digits only: Shifts also writes digits-train-shifted-*; CSV converts
	// that local copy of digits.csv(.gz) instead of fetching one;
	// AnyChecksum accepts a CSV whose SHA-256 differs when its rows check.
	Shifts      bool
	CSV         string
	AnyChecksum bool
	// Log receives the progress (nil: discarded).
	Log io.Writer
	// Client is the HTTP client (nil: one with connection timeouts that
	// honours the proxy environment variables).
	Client *http.Client
	// Timeout bounds the whole Get (0: DefaultTimeout).
	Timeout time.Duration
	// StallTimeout bounds the wait for the next bytes of a download
	// (0: DefaultStallTimeout).
	StallTimeout time.Duration
	// IsRoot reports whether apt-get install may run (nil: effective user
	// id 0).
	IsRoot func() bool
}

// Result says what Get did.
type Result struct {
	Dir     string   // the directory, as given or resolved
	Already bool     // every file was present and verified: nothing written
	Files   []string // the files of the set in Dir, as stored
}

// ChecksumError is a file whose content does not have the expected sum; the
// file is not kept.
type ChecksumError struct {
	File, From string
	Got, Want  string
	// Recorded: Want is the sum recorded when the file was first fetched
	// (the file has no published sum).
	Recorded bool
}

func (e *ChecksumError) Error() string {
	if e.Recorded {
		return fmt.Sprintf("%s from %s has SHA-256 %s (of its uncompressed content), expected %s, the sum recorded in %s%s when it was first fetched; not kept (delete that record to accept this copy)", e.File, e.From, e.Got, e.Want, e.File, RecordSuffix)
	}
	return fmt.Sprintf("%s from %s has SHA-256 %s (of its uncompressed content), expected %s; not kept", e.File, e.From, e.Got, e.Want)
}

// UnavailableError is returned when no source gave every file: it lists
// what each source said and what to do by hand.
type UnavailableError struct {
	Set     Set
	Dir     string
	Missing []string
	Tried   []string // one line per source: "SOURCE: reason"
}

func (e *UnavailableError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: could not get %s into %s; no source gave them:\n", e.Set.Name, strings.Join(e.Missing, ", "), e.Dir)
	for _, t := range e.Tried {
		fmt.Fprintf(&b, "  %s\n", t)
	}
	if e.Set.Digits != nil {
		fmt.Fprintf(&b, "By hand: download %s, then run this again with --csv FILE; it writes the IDX files into %s.\n", e.Set.Manual, e.Dir)
	} else {
		fmt.Fprintf(&b, "By hand: download %s into %s (raw or .gz), then run this again to check them.\n", e.Set.Manual, e.Dir)
	}
	b.WriteString(FindHint(e.Set, e.Dir))
	return b.String()
}

// getter is one Get in progress.
type getter struct {
	set    Set
	opt    Options
	dir    string
	log    io.Writer
	client *http.Client
}

// ResolveDir returns the directory Get fills: dir, else $Env, else the
// set's default.
func ResolveDir(set Set, dir string) string {
	if dir != "" {
		return dir
	}
	if d := os.Getenv(set.Env); d != "" {
		return d
	}
	return set.DefaultDir
}

// Get makes every file of set present and verified in the directory (see
// Options.Dir): files already there with the right sum are kept, a file
// there with a wrong sum is removed, and missing files are taken from the
// set's sources in order. Each file is written to a temporary name,
// verified, and only then renamed; a file with a wrong sum is never kept.
// For digits the CSV is then checked and converted to IDX files.
func Get(ctx context.Context, set Set, opt Options) (*Result, error) {
	timeout := opt.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	g := &getter{set: set, opt: opt, dir: ResolveDir(set, opt.Dir), log: opt.Log, client: opt.Client}
	if g.log == nil {
		g.log = io.Discard
	}
	if g.client == nil {
		g.client = defaultClient()
	}
	if set.Digits != nil {
		return g.getDigits(ctx)
	}
	missing, err := g.present(set.Files)
	if err != nil {
		return nil, err
	}
	if len(missing) == 0 {
		fmt.Fprintf(g.log, "%s already present and verified in %s\n", set.Title, g.dir)
		return g.result(true)
	}
	if err := g.fetch(ctx, missing); err != nil {
		return nil, err
	}
	fmt.Fprintf(g.log, "%s ready in %s\n", set.Title, g.dir)
	return g.result(false)
}

func (g *getter) result(already bool) (*Result, error) {
	r := &Result{Dir: g.dir, Already: already}
	for _, f := range g.set.Files {
		if p, ok := g.stored(f.Name); ok {
			r.Files = append(r.Files, p)
		}
	}
	return r, nil
}

// stored returns the path of name in the directory, raw or .gz.
func (g *getter) stored(name string) (string, bool) {
	for _, n := range []string{name, name + ".gz"} {
		p := filepath.Join(g.dir, n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

func defaultClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone() // keeps ProxyFromEnvironment
	t.DialContext = (&net.Dialer{Timeout: 20 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = 20 * time.Second
	t.ResponseHeaderTimeout = 60 * time.Second
	// No Client.Timeout: a large file on a slow line may take minutes; the
	// context of Get bounds the whole.
	return &http.Client{Transport: t}
}

// present returns the files of fs that are not in the directory with the
// right sum. A file there (raw or .gz) with a wrong sum is removed.
func (g *getter) present(files []File) ([]File, error) {
	var missing []File
	for _, f := range files {
		ok, err := g.verifyStored(f)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, f)
		}
	}
	return missing, nil
}

// verifyStored reports whether the directory holds f (raw or .gz) with the
// right sum, removing copies with a wrong one. For a file without a
// published sum the right sum is the one recorded beside it on first use
// (see RecordSuffix); a copy found with no record is trusted and recorded.
func (g *getter) verifyStored(f File) (bool, error) {
	want, recorded, err := g.wantSum(f)
	if err != nil {
		return false, err
	}
	ok := false
	for _, n := range []string{f.Name, f.Name + ".gz"} {
		p := filepath.Join(g.dir, n)
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue // (ENOTDIR: a file on the way; fetch says so)
		}
		if err != nil {
			return false, err
		}
		if !st.Mode().IsRegular() {
			return false, fmt.Errorf("%s is not a regular file", p)
		}
		sum, err := sumFile(p)
		if err == nil && want == "" && !ok {
			if err := g.record(f, sum, p); err != nil {
				return false, err
			}
			want = sum
		}
		if err == nil && sum == want {
			ok = true
			continue
		}
		why := "has SHA-256 " + sum + ", expected " + want
		if recorded {
			why += " (recorded in " + f.Name + RecordSuffix + " when it was first fetched; delete that record to accept another copy)"
		}
		if err != nil {
			why = "cannot be read: " + err.Error()
		}
		fmt.Fprintf(g.log, "%s %s; removing it\n", p, why)
		if err := os.Remove(p); err != nil {
			return false, fmt.Errorf("%s %s and cannot be removed: %w", p, why, err)
		}
	}
	return ok, nil
}

// RecordSuffix names the file, beside a data file that has no published
// SHA-256, where Get records the sum of the copy it fetched first (trust on
// first use): NAME.sha256 holds "HEX  NAME", the sum of the uncompressed
// content, and later runs check the file against it.
const RecordSuffix = ".sha256"

// wantSum returns the sum f must have: its published sum, else the one
// recorded beside it (recorded true), else "" (none yet).
func (g *getter) wantSum(f File) (sum string, recorded bool, err error) {
	if f.SHA256 != "" {
		return f.SHA256, false, nil
	}
	p := filepath.Join(g.dir, f.Name+RecordSuffix)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 || fields[1] != f.Name || len(fields[0]) != 64 || strings.Trim(fields[0], "0123456789abcdef") != "" {
		return "", false, fmt.Errorf("%s is not a record of %s's SHA-256 (expected one line \"HEX  %s\"); delete it to record the sum again", p, f.Name, f.Name)
	}
	return fields[0], true, nil
}

// record writes the sum of f, found in path, beside it and says so.
func (g *getter) record(f File, sum, path string) error {
	rec := filepath.Join(g.dir, f.Name+RecordSuffix)
	err := atomicfile.WriteFile(rec, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "%s  %s\n", sum, f.Name)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the SHA-256 of %s: %w", path, err)
	}
	fmt.Fprintf(g.log, "  %s has no published SHA-256; its SHA-256 (of the uncompressed content) is\n    %s\n  recorded in %s: later runs check the file against it (trust on first use)\n", f.Name, sum, rec)
	return nil
}

// sumFile returns the hex SHA-256 of a file's content, uncompressed when it
// is gzip (recognised by its magic bytes).
func sumFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return sumReader(f, io.Discard)
}

// sumReader returns the hex SHA-256 of r's content, uncompressed when it is
// gzip, and copies r's bytes as they are to w.
func sumReader(r io.Reader, w io.Writer) (string, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxFileBytes+1))
	h := sha256.New()
	head, _ := br.Peek(2)
	var n int64
	var err error
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		tee := &countWriter{w: w}
		zr, zerr := gzip.NewReader(io.TeeReader(br, tee))
		if zerr != nil {
			return "", fmt.Errorf("not a valid gzip file: %w", zerr)
		}
		n, err = io.Copy(h, io.LimitReader(zr, MaxFileBytes+1))
		if err != nil {
			return "", fmt.Errorf("not a valid gzip file: %w", err)
		}
		// Anything gzip left unread (it reads all members) goes to w too.
		if _, err := io.Copy(tee, br); err != nil {
			return "", err
		}
		if tee.n > MaxFileBytes {
			return "", fmt.Errorf("larger than %d bytes", MaxFileBytes)
		}
	} else {
		n, err = io.Copy(io.MultiWriter(h, w), br)
		if err != nil {
			return "", err
		}
	}
	if n > MaxFileBytes {
		return "", fmt.Errorf("larger than %d bytes", MaxFileBytes)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.w.Write(p)
}

// install writes f from r into the directory, under f.Name or f.Name+".gz"
// as r's content is raw or gzip, through a temporary file that is renamed
// only when the sum checks. A copy of the other form (raw or .gz) that was
// there is removed, so that logz reads the verified one.
func (g *getter) install(f File, r io.Reader, from string) (string, error) {
	want, recorded, err := g.wantSum(f)
	if err != nil {
		return "", err
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	name := f.Name
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		name += ".gz"
	}
	path := filepath.Join(g.dir, name)
	var sumErr error
	var got string
	err = atomicfile.WriteFile(path, func(w io.Writer) error {
		sum, err := sumReader(br, w)
		if err != nil {
			return err
		}
		got = sum
		if want != "" && sum != want {
			sumErr = &ChecksumError{File: f.Name, From: from, Got: sum, Want: want, Recorded: recorded}
			return sumErr
		}
		return nil
	})
	if sumErr != nil {
		return "", sumErr
	}
	if err != nil {
		return "", fmt.Errorf("%s from %s: %w", f.Name, from, err)
	}
	if want == "" {
		if err := g.record(f, got, path); err != nil {
			os.Remove(path)
			return "", err
		}
	}
	other := f.Name
	if name == f.Name {
		other += ".gz"
	}
	os.Remove(filepath.Join(g.dir, other))
	fmt.Fprintf(g.log, "  %s  ok (from %s)\n", path, from)
	return path, nil
}

// fetch takes the missing files from the sources in order. A source that
// fails for a file is left for the next one for that file and the ones
// after it; files it already gave are kept (they are verified).
func (g *getter) fetch(ctx context.Context, missing []File) error {
	_, statErr := os.Stat(g.dir)
	if err := os.MkdirAll(g.dir, 0o755); err != nil {
		return g.unwritable(missing, err)
	}
	if err := checkWritable(g.dir); err != nil {
		return g.unwritable(missing, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// Made here: removed again if it stays empty (os.Remove keeps a
		// directory that holds anything).
		defer os.Remove(g.dir)
	}
	var tried []string
	for _, src := range g.set.Sources {
		if len(missing) == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%s: %w", g.set.Name, err)
		}
		left, err := g.fromSource(ctx, src, missing)
		if err != nil {
			tried = append(tried, src.String()+": "+err.Error())
			if len(left) > 0 {
				fmt.Fprintf(g.log, "%s: %v\n", src, err)
			}
		}
		missing = left
	}
	if len(missing) == 0 {
		return nil
	}
	var names []string
	for _, f := range missing {
		names = append(names, f.Name)
	}
	return &UnavailableError{Set: g.set, Dir: g.dir, Missing: names, Tried: tried}
}

// unwritable is the error for a directory Get cannot write into.
func (g *getter) unwritable(missing []File, err error) error {
	var names []string
	for _, f := range missing {
		names = append(names, f.Name)
	}
	msg := fmt.Sprintf("%s: cannot write %s into %s: %v", g.set.Name, strings.Join(names, ", "), g.dir, err)
	if g.opt.Dir == "" {
		msg += fmt.Sprintf("; pass --dir DIR to put them elsewhere, then set %s=DIR", g.set.Env)
		for _, s := range g.set.Sources {
			if s.Kind == Apt {
				msg += fmt.Sprintf(", or as root run apt-get install -y %s", s.Package)
			}
		}
	}
	return errors.New(msg)
}

// checkWritable creates and removes a file in dir.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".logz-write-test-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// FindHint says, in a line or two, how logz finds the files of set in dir:
// by default, through the set's environment variable, or after the user
// sets it (the command to run is given).
func FindHint(set Set, dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	env := os.Getenv(set.Env)
	switch {
	case env != "" && same(env, dir):
		return fmt.Sprintf("logz finds them through %s=%s", set.Env, env)
	case env != "":
		return fmt.Sprintf("logz reads %s from %s=%s; to read these instead:\n  export %s=%s", set.Title, set.Env, env, set.Env, abs)
	case same(dir, set.DefaultDir):
		if filepath.IsAbs(set.DefaultDir) {
			return fmt.Sprintf("logz finds them there by default (%s unset)", set.Env)
		}
		return fmt.Sprintf("logz finds them there when run from %s (its default is ./%s, relative to where it runs); from elsewhere:\n  export %s=%s", mustWd(), set.DefaultDir, set.Env, abs)
	}
	def := set.DefaultDir
	if !filepath.IsAbs(def) {
		def = "./" + def
	}
	return fmt.Sprintf("logz looks in %s by default (%s unset); to read these:\n  export %s=%s", def, set.Env, set.Env, abs)
}

func mustWd() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	return wd
}
