package main

import (
	"flag"
	"fmt"
	"io"

	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/models"
)

const runUsage = `Usage: logz run [CONFIG.yaml] [--out DIR] [--seed N] [--resume]

Runs every experiment of CONFIG.yaml in order: loads the data, trains,
evaluates after epochs and at the end, and writes into DIR
(default runs/<config name>): results.json, report.md, config.resolved.yaml
and per experiment <name>/model.npz and <name>/epochs.csv. The final table
goes to stdout, progress to stderr. Without CONFIG.yaml it runs the embedded
quickstart (an RBM on planted synthetic data; under a minute).

Flags:
`

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	out := fs.String("out", "", "run directory (default runs/<config name>)")
	seed := fs.String("seed", "", "replace the config file's seed (experiments with their own seed keep it)")
	resume := fs.Bool("resume", false, "continue unfinished experiments from their model.npz in the run directory")
	fs.Usage = func() { fmt.Fprint(fs.Output(), runUsage); fs.PrintDefaults() }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageError{fmt.Sprintf("run: one config file at most, got %d (%s)", len(pos), strings.Join(pos, " "))}
	}
	opt := config.Options{ModelTypes: models.Names()}
	if *seed != "" {
		var s uint64
		if _, err := fmt.Sscan(*seed, &s); err != nil {
			return usageError{fmt.Sprintf("run: --seed wants a non-negative integer, got %q", *seed)}
		}
		opt.Seed = &s
	}
	var f *config.File
	if len(pos) == 1 {
		f, err = config.Load(pos[0], opt)
	} else {
		name, b := configs.Default()
		f, err = config.Parse(b, name, opt)
	}
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("runs", f.Name)
	}
	fmt.Fprintf(stderr, "logz %s: running %d experiment(s) of %s into %s\n", versionString(), len(f.Experiments), f.Name, dir)
	start := time.Now()
	_, err = experiment.Run(f, experiment.Options{
		Out: dir, Resume: *resume, Stdout: stdout, Stderr: stderr,
		Meta: map[string]string{
			"command":  "logz " + strings.Join(append([]string{"run"}, args...), " "),
			"version":  versionString(),
			"go":       runtime.Version(),
			"started":  start.UTC().Format(time.RFC3339),
			"platform": runtime.GOOS + "/" + runtime.GOARCH,
		},
	})
	fmt.Fprintf(stderr, "logz: wrote %s (%.1f s)\n", dir, time.Since(start).Seconds())
	return err
}

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
	ests := fs.String("estimator", "exact,ais", "comma-separated estimators: "+strings.Join(estimatorNames(), ", "))
	chains := fs.Int("chains", 100, "AIS runs; RAISE chains per example; CSL chains")
	betas := fs.Int("betas", 14500, "number of intermediate distributions K")
	schedule := fs.String("schedule", "2008", "β schedule: linear or 2008")
	init := fs.String("init", "base-rate", "AIS start: base-rate or uniform")
	maxUnits := fs.Int("max-units", 25, "exact: refuse above this many units in the smaller layer (≤ 40)")
	examples := fs.Int("examples", 100, "RAISE and CSL: evaluate a random subsample of N examples, extended to all by the control variate log f(v) (0 = all)")
	cv := fs.String("control-variate", "alpha1", "RAISE: alpha1, fit (least squares) or none")
	samples := fs.Int("samples", 0, "DBN/DBM: proposals per example for ais (default 500: from Q for a DBN, from the mean-field posterior for a DBM) and dbn-bound (default 5)")
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
	var list []config.Estimator
	for _, name := range splitList(*ests) {
		e, err := config.NewEstimator(name)
		if err != nil {
			return usageError{"eval: --estimator: " + err.Error()}
		}
		switch e.Name {
		case "ais":
			e.Runs, e.Betas, e.Schedule, e.Init = *chains, *betas, *schedule, *init
		case "raise":
			e.Chains, e.Betas, e.Schedule, e.Init, e.Examples, e.ControlVariate = *chains, *betas, *schedule, *init, *examples, *cv
		case "csl":
			e.Chains, e.Init, e.Examples = *chains, *init, *examples
		case "dbn-bound", "mf-bound":
			e.Runs, e.Betas, e.Schedule, e.Init = *chains, *betas, *schedule, *init
		}
		if *samples > 0 && (e.Name == "ais" || e.Name == "dbn-bound") {
			e.Samples = *samples
		}
		if e.Name == "exact" {
			e.MaxUnits = *maxUnits
		}
		list = append(list, e)
	}
	if err := checkEvalFlags(*chains, *betas, *schedule, *init, *maxUnits); err != nil {
		return err
	}
	if *samples < 0 {
		return usageError{fmt.Sprintf("eval: --samples wants a positive integer, got %d", *samples)}
	}
	if *examples < 0 {
		return usageError{fmt.Sprintf("eval: --examples wants a non-negative integer, got %d", *examples)}
	}
	if *cv != "alpha1" && *cv != "fit" && *cv != "none" {
		return usageError{fmt.Sprintf("eval: --control-variate wants alpha1, fit or none, got %q", *cv)}
	}
	ckpt, err := models.Load(*modelPath)
	if err != nil {
		return err
	}
	if err := experiment.CheckFeasible(ckpt.Model, list); err != nil {
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
	ev := experiment.Evaluation{
		Experiment: name, Stage: report.StageFinal, Epoch: ckpt.Meta.Epoch,
		Splits:   []experiment.Split{{Name: splitLabel(*spec), Data: experiment.Rows(set)}},
		BaseRate: data.LogOdds(base, 1), Train: experiment.Rows(base), Seed: *seed,
	}
	if !*asJSON {
		ev.Progress = experiment.StderrProgress(stderr)
	}
	rows, err := ev.Run(ckpt.Model, list)
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

func checkEvalFlags(chains, betas int, schedule, init string, maxUnits int) error {
	switch {
	case chains < 2:
		return usageError{fmt.Sprintf("eval: --chains wants an integer ≥ 2, got %d", chains)}
	case betas < 1:
		return usageError{fmt.Sprintf("eval: --betas wants a positive integer, got %d", betas)}
	case schedule != "linear" && schedule != "2008":
		return usageError{fmt.Sprintf("eval: --schedule wants linear or 2008, got %q", schedule)}
	case schedule == "2008" && betas < 3:
		return usageError{fmt.Sprintf("eval: --schedule 2008 needs --betas ≥ 3, got %d", betas)}
	case init != "base-rate" && init != "uniform":
		return usageError{fmt.Sprintf("eval: --init wants base-rate or uniform, got %q", init)}
	case maxUnits < 1 || maxUnits > 40:
		return usageError{fmt.Sprintf("eval: --max-units wants an integer in [1,40], got %d", maxUnits)}
	}
	return nil
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

func estimatorNames() []string {
	var out []string
	for _, k := range config.EstimatorKinds() {
		out = append(out, k.Name)
	}
	return out
}
