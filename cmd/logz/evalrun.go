package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// runContext is what a model file written by `logz run` says about the
// experiment that trained it: its resolved config (data, seeds, final
// estimates) and the fingerprints of the data it trained and evaluated
// on. `logz eval` uses it to evaluate the model as the run did.
type runContext struct {
	rec *models.RunRecord
	exp config.Experiment
}

// readRunContext returns the run context of a checkpoint, or nil when the
// file was not written by a run. A record that cannot be read is said on
// stderr and ignored (the flags then decide everything).
func readRunContext(ckpt *models.Checkpoint, path string, stderr io.Writer) *runContext {
	rec := ckpt.Meta.Run
	if rec == nil || rec.Config == "" {
		return folderRunContext(ckpt, path, stderr)
	}
	f, err := config.Parse([]byte(rec.Config), path+" (the config its run recorded)", config.Options{Recorded: true})
	if err == nil && len(f.Experiments) != 1 {
		err = fmt.Errorf("it holds %d experiments, not 1", len(f.Experiments))
	}
	if err != nil {
		fmt.Fprintf(stderr, "logz eval: %s records the run that trained it, but its config cannot be read (%v); the flags decide the data, seed and estimates\n", path, err)
		return nil
	}
	return &runContext{rec: rec, exp: f.Experiments[0]}
}

// folderRunContext is the run context of a model file that records no
// run (written before checkpoints did): the config.resolved.yaml of the
// run folder it lies in, RUN/EXPERIMENT/model.npz, when that config has the
// checkpoint's experiment. There are no fingerprints to check the data
// against; nil when the file lies in no such folder.
func folderRunContext(ckpt *models.Checkpoint, path string, stderr io.Writer) *runContext {
	exp := ckpt.Meta.Experiment
	if exp == "" || filepath.Base(filepath.Dir(path)) != exp {
		return nil
	}
	resolved := filepath.Join(filepath.Dir(filepath.Dir(path)), config.ResolvedFile)
	b, err := os.ReadFile(resolved)
	if err != nil {
		return nil
	}
	f, err := config.Parse(b, resolved, config.Options{Recorded: true})
	if err != nil {
		fmt.Fprintf(stderr, "logz eval: %s lies in a run folder whose %s cannot be read (%v); the flags decide the data, seed and estimates\n", path, resolved, err)
		return nil
	}
	e, ok := f.Experiment(exp)
	if !ok {
		return nil
	}
	fmt.Fprintf(stderr, "logz eval: %s records no run (an older logz wrote it); using experiment %s of %s, the run folder it lies in\n", path, exp, resolved)
	return &runContext{rec: &models.RunRecord{}, exp: e}
}

// evalSeed is the seed of the run's evaluations (as experiment.build
// derives it).
func (rc *runContext) evalSeed() uint64 { return config.DeriveSeed(rc.exp.Seed, 2) }

// load reads the run's data as the run did (dataDir, when given, replaces
// the run's data directory): its training set, its test and validation
// sets, and its evaluated splits.
func (rc *runContext) load(dataDir string) (train, valid, test *data.Set, splits []evalenv.Split, err error) {
	exp := rc.exp
	if dataDir != "" {
		exp.Data.DataDir = dataDir
	}
	if train, valid, test, err = experiment.LoadData(exp); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("the data of the run that trained the model (read to evaluate it as the run did; --binarize, --binarize-seed or --threshold evaluate other data without it): %w", err)
	}
	return train, valid, test, experiment.Splits(exp, train, valid, test), nil
}

// pick returns the split to evaluate for --data spec: the run's own split
// when spec is the run's train or test spec (as the run evaluated it, or
// the whole set when the run did not evaluate that split), else spec read
// with the run's binarisation.
func (rc *runContext) pick(spec, dataDir string, train, test *data.Set, splits []evalenv.Split) (evalenv.Split, error) {
	d := rc.exp.Data
	var name string
	var whole *data.Set
	switch spec {
	case d.Test:
		name, whole = "test", test
	case d.Train:
		name, whole = "train", train
	default:
		opt := experiment.DataOptions(rc.exp)
		if dataDir != "" {
			opt.DataDir, opt.FashionDir, opt.DigitsDir = dataDir, dataDir, dataDir
		}
		set, err := data.Load(spec, opt)
		if err != nil {
			return evalenv.Split{}, err
		}
		return evalenv.Split{Name: defaultSplitOf(spec), Data: set}, nil
	}
	if k := slices.IndexFunc(splits, func(s evalenv.Split) bool { return s.Name == name }); k >= 0 {
		return splits[k], nil
	}
	return evalenv.Split{Name: name, Data: whole}, nil
}

// defaultSplitOf names the split of a data spec as --split's default does.
func defaultSplitOf(spec string) string {
	d, err := config.ParseDataSpec(spec)
	if err != nil {
		return "test"
	}
	return defaultSplit(d)
}

// finalEntries returns the run's final estimates to run again and the
// position of each in the run's list (its seed derives from it): all of
// them when names is empty, else the entries of the named estimators in
// the order named. missing are the names the run's list lacks.
func (rc *runContext) finalEntries(names []string) (list []config.Estimator, positions []int, missing []string) {
	final := rc.exp.Evaluate.Final
	if len(names) == 0 {
		for i, e := range final {
			list, positions = append(list, e), append(positions, i)
		}
		return list, positions, nil
	}
	for _, n := range names {
		found := false
		for i, e := range final {
			if e.Name == n {
				list, positions, found = append(list, e), append(positions, i), true
			}
		}
		if !found {
			missing = append(missing, n)
		}
	}
	return list, positions, missing
}

// checkBits compares the bits of each evaluated split, as read before
// --limit kept its first examples (wholes, by split), with those the run
// evaluated under that split's name and says on its rows when they
// differ: a warning when the run's data were meant (asked), a note when
// the flags asked for other data. The first examples of the run's own
// bits are the run's bits.
func (rc *runContext) checkBits(rows []report.Row, splits []evalenv.Split, wholes []data.Provenance, asked bool) {
	for k, s := range splits {
		was, ok := rc.rec.Splits[s.Name]
		if !ok || s.Source == nil || was.Same(wholes[k]) {
			continue
		}
		msg := fmt.Sprintf("these are not the bits the run evaluated as its %s split: %s here, %s in the run", s.Name, wholes[k], was)
		for k := range rows {
			if rows[k].Split != s.Name {
				continue
			}
			if asked {
				rows[k].Warnings = append(rows[k].Warnings, msg+"; the number is not the run's (were the data files changed or moved?)")
			} else {
				rows[k].Notes = append(rows[k].Notes, msg+" (as the data flags asked)")
			}
		}
	}
}

// describe says in one line how the evaluation follows the run.
func (rc *runContext) describe(path string, seedFromRun bool, list []config.Estimator, fromRun bool) string {
	var parts []string
	parts = append(parts, fmt.Sprintf("%s was trained by experiment %s of a logz run", path, rc.exp.Name))
	if seedFromRun {
		parts = append(parts, fmt.Sprintf("its evaluation seed %d (--seed to change)", rc.evalSeed()))
	}
	if fromRun {
		names := make([]string, len(list))
		for i, e := range list {
			names[i] = e.Name
		}
		parts = append(parts, "its final estimates' settings ("+strings.Join(names, ", ")+"; estimator flags to change)")
	}
	return "logz eval: " + parts[0] + "; using its data (the data flags to change)" + prefixAll("; ", parts[1:])
}

func prefixAll(sep string, parts []string) string {
	out := ""
	for _, p := range parts {
		out += sep + "using " + p
	}
	return out
}
