package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/atomicfile"
	"gopkg.in/yaml.v3"
)

// Image files of an experiment's folder that report.html shows after the
// plots, in this order, when they exist.
var reportImages = []struct{ file, title, caption string }{
	{SamplesPNG, "Samples from the model", "Samples of the trained model (samples.npy), one per tile."},
	{FiltersPNG, "First-layer filters", "The weights from the visible units to each first-layer unit, one tile per unit, each scaled to its own range (dark: negative, light: positive)."},
	{CompletionName + ".png", "Missing-data completion", "Rows: the original test images, the images with their lower half hollowed out (grey), and the model's completion."},
	{sampling.QComponentsArtifact + ".png", "Components of the χ² proposal q", "The means of the components of the χ² proposal q saved in the checkpoint, one tile each."},
	{sampling.QChainsArtifact + ".png", "Gibbs chains started at q against random starts", "Block-Gibbs chains of the trained model from uniform random states (top) and from draws of the χ² proposal q (bottom), after increasing numbers of sweeps (columns)."},
}

// htmlReport writes report.html into a run folder. The plots of an
// experiment are redrawn only when its rows changed (during training only
// the current experiment's do), and the rewrite after an epoch is skipped
// when the time since the last one is under htmlBudget times what that one
// cost, so the report costs a run at most about 1/htmlBudget of its time
// (short epochs of small models would otherwise spend a tenth of it
// redrawing).
type htmlReport struct {
	out, title string
	meta       map[string]string
	// sweep, if set, is the run's swept setting (report.SweepFigures).
	sweep report.Sweep
	// grid places the experiments that are points of a grid with seeds
	// (reportGrid).
	grid  report.Grid
	mu    sync.Mutex
	cache map[string]cachedFigures
	// lastEnd and lastCost are the end and duration of the last write.
	lastEnd  time.Time
	lastCost time.Duration
	// written holds the rows report.html shows (when wrote): a write of
	// the same rows is skipped, so a sitting that changed nothing keeps the
	// report of the one that did, its command included.
	written []report.Row
	wrote   bool
}

// shows records that report.html, if the run folder has one, shows rows.
func (h *htmlReport) shows(rows []report.Row) {
	_, err := os.Stat(filepath.Join(h.out, config.HTMLFile))
	h.written, h.wrote = slices.Clone(rows), err == nil
}

// htmlBudget is the least ratio of the time between two epoch-time
// rewrites of report.html to the cost of one.
const htmlBudget = 40

type cachedFigures struct {
	rows  int
	last  report.Row
	plots []report.Figure
}

func newHTMLReport(out, title string, meta map[string]string) *htmlReport {
	return &htmlReport{out: out, title: title, meta: meta, cache: map[string]cachedFigures{}}
}

// epoch writes report.html for rows after an epoch, unless the last write
// was too recent for its cost (htmlBudget).
func (h *htmlReport) epoch(rows []report.Row) error {
	h.mu.Lock()
	due := time.Since(h.lastEnd) >= htmlBudget*h.lastCost
	h.mu.Unlock()
	if !due {
		return nil
	}
	return h.write(rows)
}

// write writes report.html for rows, atomically.
func (h *htmlReport) write(rows []report.Row) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.wrote && reflect.DeepEqual(rows, h.written) {
		return nil
	}
	start := time.Now()
	defer func() { h.lastEnd = time.Now(); h.lastCost = h.lastEnd.Sub(start) }()
	var b bytes.Buffer
	across, err := report.SweepFigures(rows, h.sweep)
	if err != nil {
		return err
	}
	seeds, err := report.GridFigures(rows, h.grid)
	if err != nil {
		return err
	}
	across = append(across, seeds...)
	// Every experiment's curves on one axes; no reason for sweep.csv.
	overlays, err := report.OverlayFigures(rows)
	if err != nil {
		return err
	}
	if err := report.WriteHTMLGrid(&b, h.title, h.meta, rows, h.figures, append(slices.Clip(across), overlays...), h.grid); err != nil {
		return err
	}
	if len(across) > 0 {
		var c bytes.Buffer
		if _, err := report.WriteSweepCSV(&c, rows, h.sweep); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(h.out, config.SweepFile), func(w io.Writer) error {
			_, err := w.Write(c.Bytes())
			return err
		}); err != nil {
			return err
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(h.out, config.HTMLFile), func(w io.Writer) error {
		_, err := w.Write(b.Bytes())
		return err
	}); err != nil {
		return err
	}
	h.written, h.wrote = slices.Clone(rows), true
	return nil
}

func (h *htmlReport) figures(exp string, rows []report.Row) ([]report.Figure, error) {
	c, ok := h.cache[exp]
	if !ok || c.rows != len(rows) || len(rows) > 0 && !sameRow(c.last, rows[len(rows)-1]) {
		plots, err := report.ExperimentFigures(rows)
		if err != nil {
			return nil, err
		}
		c = cachedFigures{rows: len(rows), plots: plots}
		if len(rows) > 0 {
			c.last = rows[len(rows)-1]
		}
		h.cache[exp] = c
	}
	imgs, err := experimentImages(filepath.Join(h.out, exp))
	if err != nil {
		return nil, err
	}
	return append(append([]report.Figure(nil), c.plots...), imgs...), nil
}

// sameRow compares the identity of two rows (enough to see that an
// experiment's rows were replaced, as --resume and a merge do).
func sameRow(a, b report.Row) bool {
	return a.Stage == b.Stage && a.Epoch == b.Epoch && a.Estimator == b.Estimator && a.Split == b.Split && a.Seconds == b.Seconds
}

// experimentImages reads the image files of an experiment folder that
// exist (reportImages); the samples' caption says how they were drawn when
// samples.json does.
func experimentImages(dir string) ([]report.Figure, error) {
	var out []report.Figure
	for _, im := range reportImages {
		data, err := os.ReadFile(filepath.Join(dir, im.file))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		caption := im.caption
		switch im.file {
		case SamplesPNG:
			if what := jsonField(filepath.Join(dir, SamplesInfoFile), "what"); what != "" {
				caption = "Samples of the trained model: " + what + "."
			}
		case CompletionName + ".png", sampling.QComponentsArtifact + ".png", sampling.QChainsArtifact + ".png":
			if c := jsonField(filepath.Join(dir, strings.TrimSuffix(im.file, ".png")+".json"), "caption"); c != "" {
				caption = c
			}
		}
		if src := staleSource(dir, im.file); src != "" {
			caption += " " + staleNote(im.file, src)
		}
		out = append(out, report.Figure{Name: im.file[:len(im.file)-len(".png")], Title: im.title, Caption: caption, MIME: "image/png", Data: data})
	}
	return out, nil
}

// staleNote is the caption's warning under a picture that could not be
// redrawn because src, the file it is drawn from, is missing.
func staleNote(picture, src string) string {
	return fmt.Sprintf("Not redrawn: %s, which %s is drawn from, is missing from the folder, so this picture may not match the run's other files.", src, picture)
}

// jsonField returns the string field key of a JSON object file ("" if
// the file or the field is absent or not a string).
func jsonField(path, key string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return ""
	}
	v, _ := m[key].(string)
	return v
}

// WriteHTMLReport (re)writes report.html of a run folder from its
// results.json, config.resolved.yaml and image files, without training:
// what `logz plot` does.
func WriteHTMLReport(dir string, meta map[string]string) error {
	rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
	if err != nil {
		return err
	}
	// The config's name and seed, as report.md gives them.
	var head struct {
		Name string `yaml:"name"`
		Seed uint64 `yaml:"seed"`
	}
	name := filepath.Base(dir)
	var sweep report.Sweep
	var grid report.Grid
	if data, err := os.ReadFile(filepath.Join(dir, config.ResolvedFile)); err == nil && yaml.Unmarshal(data, &head) == nil && head.Name != "" {
		name = head.Name
		meta["seed"] = fmt.Sprint(head.Seed)
		if sweep.Setting, sweep.X, err = config.SweepOf(data); err != nil {
			return fmt.Errorf("%s: %w", config.ResolvedFile, err)
		}
		if grid, err = reportGrid(data); err != nil {
			return fmt.Errorf("%s: %w", config.ResolvedFile, err)
		}
	}
	meta["config"] = name
	h := newHTMLReport(dir, "logz report: "+name, meta)
	h.sweep, h.grid = sweep, grid
	return h.write(rows)
}

// reportGrid returns the grid points with a seed axis, or with select:,
// of the experiments of a resolved config, for the reports' means over
// seeds and the grids' choices.
func reportGrid(resolved []byte) (report.Grid, error) {
	entries, err := config.GridEntries(resolved)
	if err != nil {
		return nil, err
	}
	g := report.Grid{}
	for _, e := range entries {
		seed, ok := e.Point.Seed()
		if !ok && e.Select.IsZero() {
			continue
		}
		pt := report.GridPoint{Group: e.Point.Group(), Seed: seed, Of: e.Point.Of, Setting: e.Point.Setting(), Index: e.Index}
		if !e.Select.IsZero() {
			pt.Select = &report.SelectSpec{Split: e.Select.Split, Estimator: e.Select.Estimator}
		}
		g[e.Name] = pt
	}
	return g, nil
}

// ExperimentImages is what RedrawImages did in one experiment's folder.
type ExperimentImages struct {
	Experiment string
	Redrawn
}

// RedrawImages redraws the image files of every experiment folder of a run
// (DrawImages) and returns, per experiment that has any picture or file
// to draw one from, the pictures redrawn and those left as they were
// because their files are missing.
func RedrawImages(dir string) ([]ExperimentImages, error) {
	rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
	if err != nil {
		return nil, err
	}
	var out []ExperimentImages
	for _, e := range report.Experiments(rows) {
		r, _, err := drawImages(filepath.Join(dir, e))
		if err != nil {
			return out, err
		}
		if len(r.Drawn) > 0 || len(r.Stale) > 0 {
			out = append(out, ExperimentImages{Experiment: e, Redrawn: r})
		}
	}
	return out, nil
}

// ReadReportMeta returns the description list of a run folder's report.md
// (config, command, version, started, ...), empty if it has none.
func ReadReportMeta(dir string) map[string]string {
	meta := map[string]string{}
	data, err := os.ReadFile(filepath.Join(dir, config.ReportFile))
	if err != nil {
		return meta
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		rest, ok := strings.CutPrefix(line, "- **")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(rest, "**: ")
		if ok {
			meta[unescapeMD(k)] = unescapeMD(v)
		}
	}
	return meta
}

// unescapeMD undoes report.md's escaping of text (\\, \|, \*, &lt;, <br>).
func unescapeMD(s string) string {
	s = strings.ReplaceAll(s, "<br>", "\n")
	s = strings.ReplaceAll(s, "&lt;", "<")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
