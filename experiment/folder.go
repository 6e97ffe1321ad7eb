package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
	"gopkg.in/yaml.v3"
)

// Files logz writes in an experiment's directory.
const (
	modelFile    = "model.npz"
	bestFile     = "best.npz" // the best model by validation (train.early_stop)
	epochsFile   = "epochs.csv"
	progressFile = "final.progress.json"
	samplesFile  = "samples.npy"
)

// isExperimentFile reports whether logz writes files of that name in an
// experiment's directory.
func isExperimentFile(n string) bool {
	switch n {
	case modelFile, bestFile, epochsFile, progressFile, samplesFile, SamplesInfoFile, SamplesPNG, FiltersPNG,
		CompletionName + ".npy", CompletionName + ".json", CompletionName + ".png":
		return true
	}
	return false
}

// FolderError refuses a run folder before anything is written: a previous
// run without --resume or --force, a changed config on --resume, a folder
// that is not a run. The command line has to change.
type FolderError struct{ Msg string }

func (e *FolderError) Error() string { return e.Msg }

func folderError(format string, args ...any) error {
	return &FolderError{fmt.Sprintf(format, args...)}
}

// prepared is what checking the run folder found: the rows of a run being
// resumed and what --force is to discard.
type prepared struct {
	empty   bool // nothing there: a new run, even with --resume
	rows    []report.Row
	discard []string // paths, with a description each in describe
	about   []string
	stale   []string // temporary files of a killed process, removed on --resume
}

// prepare checks the run folder against the options before anything is
// written: an empty or new folder is fine; a folder holding a run needs
// --resume (and then the same resolved config, readable results and
// checkpoints) or --force; anything else is refused. It returns the rows
// to keep and, for --force, what to discard.
func prepare(f *config.File, resolved []byte, opt Options) (*prepared, error) {
	p := &prepared{}
	dir := opt.Out
	entries, err := readRunDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if opt.Resume && !opt.ResumeAuto {
			return nil, nothingToResume(dir, "there is no such folder")
		}
		p.empty = true
		return p, nil
	case err != nil:
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			return nil, folderError("%s is a file, not a folder; choose another --out", dir)
		}
		return nil, err
	case onlyTempFiles(entries):
		if opt.Resume && !opt.ResumeAuto {
			return nil, nothingToResume(dir, "it is empty")
		}
		p.empty = true
		return p, nil
	}
	// A merge read f from the folder's config.resolved.yaml (under the
	// lock it holds, which found a run there): f is the run's config.
	var was *config.File
	var state runState
	if opt.merge != nil {
		was = opt.merge.config
	}
	if was == nil {
		state = readRunState(dir, entries)
		if !state.run {
			return nil, notARun(dir, state.foreign)
		}
	}
	if err := refuseLinks(f, dir, was); err != nil {
		return nil, err
	}
	if opt.Resume {
		if err := p.checkResume(f, resolved, dir, was == f); err != nil {
			return nil, err
		}
		p.stale, _ = filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
		more, _ := filepath.Glob(filepath.Join(dir, "*", ".*.tmp-*"))
		p.stale = append(p.stale, more...)
		return p, nil
	}
	summary := describeRun(f, dir)
	if len(state.foreign) > 0 {
		// Never offer (or do) a --force that would delete them.
		return nil, folderError("%s holds a logz run (%s) and %s that logz did not write; move %s away first, or use another --out",
			dir, summary, strings.Join(state.foreign, ", "), map[bool]string{true: "it", false: "them"}[len(state.foreign) == 1])
	}
	if !opt.Force {
		return nil, folderError("%s already holds a run (%s); pass --resume to continue it, or --force to discard it and start over", dir, summary)
	}
	return p, p.planDiscard(f, dir, entries)
}

// checkResume validates a run folder for --resume: its resolved config
// must be this run's (own: f was read from it), its results and
// checkpoints readable.
func (p *prepared) checkResume(f *config.File, resolved []byte, dir string, own bool) error {
	if !own {
		if err := sameConfig(f, resolved, dir, "--resume", "a resumed run must use the same one (or start over with --force, or use another --out)"); err != nil {
			return err
		}
	}
	rpath := filepath.Join(dir, config.ResultsFile)
	if rows, err := report.ReadResults(rpath); err == nil {
		p.rows = rows
	} else if !errors.Is(err, fs.ErrNotExist) {
		return folderError("--resume: %v", err)
	}
	for _, exp := range f.Experiments {
		ck := filepath.Join(dir, exp.Name, modelFile)
		if c, err := models.Load(ck, family.Codecs()); err == nil {
			if want := exp.Model.Type; c.Model.TypeName() != want {
				return folderError("--resume: %s holds a %s, the config's experiment %s is a %s", ck, c.Model.TypeName(), exp.Name, want)
			}
			if err := unresumable(ck, c); err != nil {
				return folderError("--resume: %v; move it away to train %s from scratch", err, exp.Name)
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return folderError("--resume: %v; move it away to train %s from scratch", err, exp.Name)
		}
		if _, err := readProgress(filepath.Join(dir, exp.Name, progressFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return folderError("--resume: %v; delete it to redo %s's final evaluation", err, exp.Name)
		}
	}
	return nil
}

// unresumable refuses a checkpoint (read from path) that a run cannot
// resume from: a model-only file (as logz export writes it), or one whose
// training state (its state_* arrays: momentum and Adam buffers,
// persistent chains, baselines) holds NaN: logz never saves one, so the
// file is damaged, and training from it would only be reported later as a
// diverged training.
func unresumable(path string, c *models.Checkpoint) error {
	if c.Meta.ModelOnly {
		return fmt.Errorf("%s holds the model without the trainer's state (as logz export writes it): it can be evaluated and sampled, not resumed", path)
	}
	for _, k := range sortedStateKeys(c) {
		for i, x := range c.State[k].Data {
			if math.IsNaN(x) {
				return fmt.Errorf("%s is damaged: its training state array %s%s holds NaN (at index %d), which logz never saves", path, models.StatePrefix, k, i)
			}
		}
	}
	return nil
}

func sortedStateKeys(c *models.Checkpoint) []string {
	keys := make([]string, 0, len(c.State))
	for k := range c.State {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sameConfig checks that the run in dir (its config.resolved.yaml) was
// made with f, whose resolved config is resolved; what names the flag or
// command in the errors, and must says what to do instead.
func sameConfig(f *config.File, resolved []byte, dir, what, must string) error {
	path := filepath.Join(dir, config.ResolvedFile)
	old, err := os.ReadFile(path)
	if err != nil {
		return folderError("%s: %v; without it logz cannot check that the run used this config", what, err)
	}
	was, err := config.Parse(old, path, config.Options{Recorded: true})
	if err != nil {
		return folderError("%s: %v", what, err)
	}
	if err := setAddedKeys(old, was); err != nil {
		return folderError("%s: %s: %v", what, path, err)
	}
	// The name and description are labels; everything else must match.
	was.Name, was.Description = f.Name, f.Description
	// So is an experiment's grid_point, which says which grid made it: a
	// run of experiments written out by hand goes on under a config that
	// makes the same experiments with a grid (and the other way round).
	// And select:, which chooses among the results and changes none: a run
	// goes on (or is re-reported) under another choice.
	points := map[string]config.Experiment{}
	for _, e := range f.Experiments {
		points[e.Name] = e
	}
	for i, e := range was.Experiments {
		was.Experiments[i].Grid, was.Experiments[i].Select = points[e.Name].Grid, points[e.Name].Select
	}
	wasResolved, err := was.Resolved()
	if err != nil {
		return err
	}
	diff, err := config.DiffResolved(wasResolved, resolved, "the run folder", "", 8)
	if err != nil {
		return err
	}
	if len(diff) > 0 {
		return folderError("%s: the run in %s was made with another config or seed%s; %s:\n  %s%s",
			what, dir, overridesDiffer(config.ResolvedOverrides(old), f.Overrides), must, strings.Join(diff, "\n  "), precisionHint(diff))
	}
	return nil
}

// overridesDiffer names the --set arguments of the run in a folder (was)
// and of this command (now) when they differ, for the error of sameConfig.
func overridesDiffer(was, now []string) string {
	if slices.Equal(was, now) {
		return ""
	}
	show := func(l []string) string {
		if len(l) == 0 {
			return "no --set"
		}
		return "--set " + strings.Join(l, " --set ")
	}
	return fmt.Sprintf(" (the run was made with %s, this command has %s)", show(was), show(now))
}

// setAddedKeys gives the experiments of was, parsed from the resolved
// config old, the value of each train key it lacks that was added later
// (family.AddedKeys): what the run used before the key existed, not
// today's default.
func setAddedKeys(old []byte, was *config.File) error {
	var raw struct {
		Experiments []struct {
			Train map[string]any `yaml:"train"`
		} `yaml:"experiments"`
	}
	if err := yaml.Unmarshal(old, &raw); err != nil {
		return err
	}
	if len(raw.Experiments) != len(was.Experiments) {
		return fmt.Errorf("%d experiments read, %d parsed", len(raw.Experiments), len(was.Experiments))
	}
	for i, e := range was.Experiments {
		a, ok := e.Train.(family.AddedKeys)
		if !ok {
			continue
		}
		for _, k := range a.Added() {
			if _, set := raw.Experiments[i].Train[k]; !set {
				a.SetBefore(k)
			}
		}
	}
	return nil
}

// precisionHint explains a train.precision that differs between a run
// folder and the config: the default changed (the rbm, dbn and dbm
// trainers run cd and pcd in float32 unless train.precision is set; they
// ran float64 by default before), so the config likely lacks the key the
// run was made with.
func precisionHint(diff []string) string {
	for _, d := range diff {
		key, vals, _ := strings.Cut(d, ": ")
		if !strings.HasSuffix(key, ".train.precision") {
			continue
		}
		was, _, _ := strings.Cut(vals, " ")
		was = strings.Trim(was, `"`)
		if was != "float32" && was != "float64" {
			continue
		}
		return fmt.Sprintf("\n(train.precision: if the config does not set it, its default may have changed since this run was made; set train.precision: %s to continue it)", was)
	}
	return ""
}

// planDiscard lists what --force removes: the run files at the top and
// the directories of experiments (of this config or the old run) that hold
// only files logz writes. A folder with anything else in such a directory
// is refused rather than half cleaned.
func (p *prepared) planDiscard(f *config.File, dir string, entries []os.DirEntry) error {
	expDirs := experimentDirs(f, dir, nil)
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir, name)
		switch {
		case !e.IsDir() && isRunFile(name) && !logzRunFile(path):
			return folderError("--force: %s was not written by logz; move it away first", path)
		case !e.IsDir() && (isRunFile(name) || isTempFile(name)):
			p.discard = append(p.discard, path)
			p.about = append(p.about, describeFile(path, false))
		case e.IsDir() && expDirs[name]:
			sub, err := os.ReadDir(path)
			if err != nil {
				return err
			}
			var foreign, what []string
			for _, s := range sub {
				switch n := s.Name(); {
				case s.IsDir() || !(isExperimentFile(n) || isTempFile(n)) || !logzExperimentFile(filepath.Join(path, n)):
					foreign = append(foreign, n)
				case !isTempFile(n):
					what = append(what, describeFile(filepath.Join(path, n), true))
				}
			}
			if len(foreign) > 0 {
				return folderError("--force: %s holds files logz did not write (%s); move them away first", path, strings.Join(foreign, ", "))
			}
			p.discard = append(p.discard, path)
			p.about = append(p.about, fmt.Sprintf("%s/ (%s)", path, strings.Join(what, ", ")))
		case e.IsDir() && expDirs[name] == false:
			// Another folder: left alone; an experiment of this config
			// cannot write into it (its name is not an experiment's).
		}
	}
	return nil
}

// experimentDirs names the experiment folders a run of f in dir may write
// or clear: f's experiments and those of the run already there (its
// results.json and config.resolved.yaml; was, if not nil, is that config
// as the caller read it, which is then not read again).
func experimentDirs(f *config.File, dir string, was *config.File) map[string]bool {
	expDirs := map[string]bool{}
	for _, e := range f.Experiments {
		expDirs[e.Name] = true
	}
	if rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile)); err == nil {
		for _, r := range rows {
			expDirs[r.Experiment] = true
		}
	}
	if was == nil {
		if b, err := os.ReadFile(filepath.Join(dir, config.ResolvedFile)); err == nil {
			was, _ = config.Parse(b, config.ResolvedFile, config.Options{Recorded: true})
		}
	}
	if was != nil {
		for _, e := range was.Experiments {
			expDirs[e.Name] = true
		}
	}
	return expDirs
}

// discardAll removes what planDiscard listed.
func (p *prepared) discardAll() error {
	for _, path := range p.discard {
		if err := os.RemoveAll(path); err != nil {
			return fmt.Errorf("--force: %w", err)
		}
	}
	return nil
}

// logzRunFile reports whether the file at path, named like a run file
// (config.RunFiles), is one logz wrote: config.resolved.yaml parses as a
// logz config, results.json as logz results, report.md and report.html
// start as logz's reports do, sweep.csv has logz's header. A file of that
// name that logz did not write (a user's own results.json) is never taken
// for a run, and never discarded.
func logzRunFile(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	head := func(n int) string {
		f, err := os.Open(path)
		if err != nil {
			return ""
		}
		defer f.Close()
		b := make([]byte, n)
		k, _ := io.ReadFull(f, b)
		return string(b[:k])
	}
	switch filepath.Base(path) {
	case config.ResolvedFile:
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		if resolvedByLogz(b) {
			return true
		}
		_, err = config.Parse(b, path, config.Options{Recorded: true})
		return err == nil
	case config.ResultsFile:
		_, err := report.ReadResults(path)
		return err == nil
	case config.ReportFile:
		return strings.HasPrefix(head(64), "# logz report: ")
	case config.HTMLFile:
		return strings.Contains(head(512), "<title>logz report: ")
	case config.SweepFile:
		return strings.HasPrefix(head(64), "setting,value,experiment,stage,estimator,")
	}
	return false
}

// resolvedByLogz reports whether b is a config.resolved.yaml as logz
// writes them: its head comment, then a YAML mapping with experiments. Such
// a file is logz's even when this logz cannot read it as a config (a
// bottom_from model moved away, a key of another version): --resume then
// names the actual problem rather than calling the folder no run.
func resolvedByLogz(b []byte) bool {
	if !bytes.HasPrefix(b, []byte(config.ResolvedHeader)) {
		return false
	}
	var doc struct {
		Experiments []map[string]any `yaml:"experiments"`
	}
	return yaml.Unmarshal(b, &doc) == nil && len(doc.Experiments) > 0
}

// logzExperimentFile reports whether a file named like one logz writes in
// an experiment's folder is logz's, as far as it can tell: a model.npz
// must read as a checkpoint, an epochs.csv must have logz's header; the
// others are taken by their names.
func logzExperimentFile(path string) bool {
	switch filepath.Base(path) {
	case modelFile, bestFile:
		_, err := models.Load(path, family.Codecs())
		return err == nil
	case epochsFile:
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		defer f.Close()
		b := make([]byte, 32)
		n, _ := io.ReadFull(f, b)
		return strings.HasPrefix(string(b[:n]), "epoch,estimator,split,")
	}
	return true
}

// runState is what a folder's run files say: whether it holds a logz run
// (a config.resolved.yaml or results.json that logz wrote) and the run
// files in it that logz did not write.
type runState struct {
	run     bool
	foreign []string // base names
}

// readRunState checks the run files among entries, the listing of dir.
func readRunState(dir string, entries []os.DirEntry) runState {
	var st runState
	for _, e := range entries {
		n := e.Name()
		if !isRunFile(n) {
			continue
		}
		if !logzRunFile(filepath.Join(dir, n)) {
			st.foreign = append(st.foreign, n)
			continue
		}
		if n == config.ResolvedFile || n == config.ResultsFile {
			st.run = true
		}
	}
	return st
}

// HoldsRun reports whether dir holds a logz run: a config.resolved.yaml
// or results.json that logz wrote.
func HoldsRun(dir string) bool {
	entries, err := readRunDir(dir)
	return err == nil && readRunState(dir, entries).run
}

func isRunFile(name string) bool {
	for _, f := range config.RunFiles {
		if name == f {
			return true
		}
	}
	return false
}

// isTempFile matches the temporary files of internal/atomicfile
// (".<name>.tmp-<random>"), left behind only by a killed process.
func isTempFile(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}

// describeFile says what a run file holds, for messages: its path (only
// its base name when short) and, for results and models, what is in them.
func describeFile(path string, short bool) string {
	name := path
	if short {
		name = filepath.Base(path)
	}
	switch filepath.Base(path) {
	case config.ResultsFile:
		if rows, err := report.ReadResults(path); err == nil {
			return fmt.Sprintf("%s (%d rows)", name, len(rows))
		}
	case modelFile, bestFile:
		if c, err := models.Load(path, family.Codecs()); err == nil {
			return fmt.Sprintf("%s (model after epoch %d)", name, c.Meta.Epoch)
		}
	}
	return name
}

// describeRun summarises a run folder in one line: rows, and per
// experiment of f whether it has a checkpoint and final estimates.
func describeRun(f *config.File, dir string) string {
	var parts []string
	rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
	if err == nil {
		parts = append(parts, fmt.Sprintf("%s with %d rows", config.ResultsFile, len(rows)))
	}
	finished := map[string]bool{}
	for _, r := range rows {
		if r.Stage == report.StageFinal {
			finished[r.Experiment] = true
		}
	}
	var fin, ck []string
	for _, e := range f.Experiments {
		if finished[e.Name] {
			fin = append(fin, e.Name)
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name, modelFile)); err == nil {
			ck = append(ck, e.Name)
		}
	}
	if len(fin) > 0 {
		sort.Strings(fin)
		parts = append(parts, "final estimates of "+strings.Join(fin, ", "))
	}
	if len(ck) > 0 {
		parts = append(parts, "checkpoints of "+strings.Join(ck, ", "))
	}
	if len(parts) == 0 {
		// Only the config: name it, as it is there (readRunState found it).
		parts = append(parts, config.ResolvedFile)
	}
	return strings.Join(parts, "; ")
}
