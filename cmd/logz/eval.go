package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all" // every model family
	"github.com/logz-ml/logz/models"
)

const evalUsage = `Usage: logz eval --model FILE.npz --data SPEC --estimator LIST [flags]

Evaluates a saved model (a logz model.npz, or an .npz written by NumPy with
W, vbias, hbias) on a data set. LIST is comma-separated, e.g.
exact,ais,raise,csl: AIS and RAISE run on the same annealing path and are
shown side by side with their gap.
SPEC is mnist:train|test, fashion-mnist:train|test, idx:PATH or npy:PATH
(an N×D array of 0/1). Prints a table, or with --json the results.json object.

Flags:
`

func cmdEval(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model file (.npz) (required)")
	spec := fs.String("data", "", "data spec of the examples to evaluate (required)")
	baseSpec := fs.String("base-data", "", "data spec whose log-odds give the AIS base-rate start (default: --data)")
	_, allNames := family.KnownEstimator("")
	ests := fs.String("estimator", "exact,ais", "comma-separated estimators of the model's family (see 'logz models'): "+strings.Join(allNames, ", "))
	// The flags that estimator settings declare (flag:"name" tags).
	estFlags := family.Flags()
	flagVals := make([]*string, len(estFlags))
	for i, f := range estFlags {
		flagVals[i] = fs.String(f.Name, f.Default, f.Usage)
	}
	limit := fs.Int("limit", 0, "use only the first N examples of --data (0 = all)")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	binarize := fs.String("binarize", "stochastic", "grey images: stochastic, threshold or none")
	threshold := fs.Float64("threshold", 0.5, "cut for --binarize threshold")
	dataDir := fs.String("data-dir", "", "directory of the MNIST/Fashion-MNIST IDX files")
	asJSON := fs.Bool("json", false, "print the results.json object instead of a table")
	fs.Usage = func() { fmt.Fprint(fs.Output(), evalUsage); fs.PrintDefaults() }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("eval: unexpected argument %q (flags only; see 'logz eval --help')", pos[0])}
	}
	if *modelPath == "" || *spec == "" {
		return usageError{"eval: --model and --data are required (see 'logz eval --help')"}
	}
	names := splitList(*ests)
	for _, name := range names {
		if owners, _ := family.KnownEstimator(name); len(owners) == 0 {
			return usageError{fmt.Sprintf("eval: --estimator: unknown estimator %q%s", name, config.KnownHint(name, allNames))}
		}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	values := map[string]string{}
	for i, f := range estFlags {
		v := *flagVals[i]
		if (given[f.Name] || f.Default != "") && !(f.ZeroUnset && v == "0") && v != "" {
			values[f.Name] = v
		}
	}
	ckpt, err := models.Load(*modelPath)
	if err != nil {
		return err
	}
	fam, err := family.Lookup(ckpt.Model.TypeName())
	if err != nil {
		return err
	}
	list, err := evalEstimators(fam, names, values, given, stderr)
	if err != nil {
		return err
	}
	if err := fam.CheckFeasible(ckpt.Model, list); err != nil {
		return err
	}
	opt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, Binarize: data.Binarization{Method: *binarize, Threshold: *threshold, Seed: *seed}}
	set, err := data.Load(*spec, opt)
	if err != nil {
		return err
	}
	if set.D != ckpt.Model.NumVisible() {
		return fmt.Errorf("%s has %d units per example but the model in %s has %d visible units", *spec, set.D, *modelPath, ckpt.Model.NumVisible())
	}
	if *limit > 0 && *limit < set.N {
		set = set.Limit(*limit)
	}
	base := set
	if *baseSpec != "" {
		if base, err = data.Load(*baseSpec, opt); err != nil {
			return err
		}
		if base.D != set.D {
			return fmt.Errorf("--base-data %s has %d units per example, --data %d", *baseSpec, base.D, set.D)
		}
	}
	name := strings.TrimSuffix(filepath.Base(*modelPath), filepath.Ext(*modelPath))
	ev := family.Env{
		Experiment: name, Stage: report.StageFinal, Epoch: ckpt.Meta.Epoch,
		Splits:   []family.Split{{Name: splitLabel(*spec), Data: experiment.Rows(set)}},
		BaseRate: data.LogOdds(base, 1), Train: experiment.Rows(base), Seed: *seed,
		Notice: func(msg string) { fmt.Fprintln(stderr, msg) },
	}
	if !*asJSON {
		ev.Progress = experiment.StderrProgress(stderr)
	}
	rows, err := ev.Run(fam, ckpt.Model, list)
	if err != nil {
		return err
	}
	if *asJSON {
		return report.EncodeResults(stdout, rows)
	}
	if err := report.RenderTable(stdout, rows, report.TableOptions{}); err != nil {
		return err
	}
	return report.RenderSandwich(stdout, rows, report.TableOptions{})
}

// evalEstimators builds the estimator entries of `logz eval` for a model of
// family fam: each at its defaults, with the flag values its settings
// declare. A name the family does not have is a usage error listing the
// ones it has; a flag given explicitly that no chosen estimator uses is
// reported on stderr.
func evalEstimators(fam *family.Family, names []string, values map[string]string, given map[string]bool, stderr io.Writer) ([]config.Estimator, error) {
	var list []config.Estimator
	used := map[string]bool{}
	for _, name := range names {
		spec, ok := fam.Estimator(name)
		if !ok {
			return nil, usageError{fmt.Sprintf("eval: --estimator: %s is not an estimator of model type %s (its estimators: %s)", name, fam.Name, strings.Join(fam.EstimatorNames(), ", "))}
		}
		s := spec.New()
		for _, f := range config.SettingsFlags(s) {
			used[f] = true
		}
		if err := config.ApplyFlags(s, name, values); err != nil {
			return nil, usageError{"eval: " + err.Error()}
		}
		list = append(list, config.Estimator{Name: name, Settings: s})
	}
	for _, f := range family.Flags() {
		if given[f.Name] && !used[f.Name] {
			fmt.Fprintf(stderr, "logz eval: --%s is not a setting of %s for a %s; ignored\n", f.Name, strings.Join(names, ", "), fam.Name)
		}
	}
	return list, nil
}

// splitLabel names the evaluated split after the data spec's part
// (mnist:test → test; npy:/x/y.npy → y.npy).
func splitLabel(spec string) string {
	_, part, ok := strings.Cut(spec, ":")
	if !ok {
		return spec
	}
	return filepath.Base(part)
}
