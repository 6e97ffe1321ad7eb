package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/rbm"
	"github.com/logz-ml/logz/models"
)

const compareUsage = `Usage: logz compare RUN RUN... [--out DIR]
       logz compare --model A.npz --model B.npz [--data SPEC] [flags]
       logz compare RUN --experiments A,B [--split test] [flags]

The first form puts the final estimates of several run folders side by
side: one line per experiment, estimator, split, K and start; each run's
number with its estimator's own error, and its difference from the first
run's with the combined error. Rows measured with different protocols (other
data bits, binarisation or binarisation seed, split, estimator, K or start)
are listed but marked not comparable, naming the field. The keys of the
runs' config.resolved.yaml that differ are listed. With --out DIR it also
writes DIR/report.md and DIR/report.html (with the per-epoch curves of the
runs overlaid).

The other forms give a paired verdict on two models: Δ = mean log p_B −
mean log p_A on the same examples with one error bar, and whether it
establishes a difference (|Δ| > 1.96σ). For two RBMs over the same visible
units, Δ = mean[−F_B(v) + F_A(v)] − (log Z_B − log Z_A), the ratio from AIS
along the joint path of the two models (exact when both log Z can be
enumerated, --max-units), σ = √(SE_paired² + σ_ratio²). Other models whose
log p(v) can be enumerated within --max-units (sbn, mob, or an RBM beside
one of them) are paired over the examples exactly; for the rest Δ and σ
come from the final estimates of the runs that trained them.
--data may be left out for models written by logz run (their run's split).
See docs/compare.md.

Flags:
`

// modelList collects repeated --model flags.
type modelList []string

func (m *modelList) String() string     { return strings.Join(*m, ",") }
func (m *modelList) Set(s string) error { *m = append(*m, s); return nil }

func cmdCompare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	out := fs.String("out", "", "folder to write report.md and report.html of the comparison of runs into")
	var modelsFlag modelList
	fs.Var(&modelsFlag, "model", "a model file (.npz); give it twice, A then B, for a paired verdict")
	exps := fs.String("experiments", "", "A,B: two experiments of the one run folder given, for a paired verdict")
	spec := fs.String("data", "", "with --model: data spec of the examples both models are measured on")
	split := fs.String("split", "test", "with --experiments, or --model files of a run without --data: the run's split to measure")
	dr := rbm.DefaultRatio()
	chains := fs.Int("chains", dr.Runs, "AIS runs of the log Z ratio of two RBMs")
	betas := fs.Int("betas", dr.Betas, "intermediate distributions of the AIS ratio")
	schedule := fs.String("schedule", dr.Schedule, "β schedule of the AIS ratio: linear or 2008")
	start := fs.String("ratio-start", dr.Start, "start of the AIS ratio's runs: auto, exact, gibbs or reversed")
	gibbs := fs.Int("gibbs-steps", dr.GibbsSteps, "Gibbs sweeps of A before each run with a gibbs start")
	maxUnits := fs.Int("max-units", dr.MaxUnits, "enumerate both log Z exactly (no AIS) when both RBMs' smaller layers have at most this many units (0: always AIS)")
	seed := fs.Uint64("seed", 1, "seed of the AIS ratio")
	binarize := fs.String("binarize", data.Stochastic, "grey images (mnist:, fashion-mnist:, idx:): "+data.Methods)
	binarizeSeed := fs.Uint64("binarize-seed", 1, "seed of a stochastic --binarize")
	dataDir := fs.String("data-dir", "", "directory of the MNIST/Fashion-MNIST IDX files")
	limit := fs.Int("limit", 0, "use only the first N examples (0 = all)")
	ascii := fs.Bool("ascii", false, "draw the table's borders with + - |")
	fs.Usage = func() { fmt.Fprint(fs.Output(), compareUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	p := pairFlags{chains: *chains, betas: *betas, schedule: *schedule, start: *start, gibbs: *gibbs, maxUnits: *maxUnits, seed: *seed,
		split: *split, dataDir: *dataDir, limit: *limit}
	switch {
	case len(modelsFlag) > 0:
		if len(modelsFlag) != 2 || len(pos) > 0 || *exps != "" {
			return usageError{"compare: --model wants exactly two model files (A, then B) and no run folders (see 'logz compare --help')"}
		}
		var set *data.Set
		if *spec != "" {
			if _, err := config.ParseDataSpec(*spec); err != nil {
				return usageError{"compare: --data: " + err.Error()}
			}
			opt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, DigitsDir: *dataDir,
				Binarize: data.Binarization{Method: *binarize, Threshold: data.DefaultThreshold, Seed: *binarizeSeed}}
			if set, err = data.Load(*spec, opt); err != nil {
				return err
			}
		}
		return comparePaired(modelsFlag[0], modelsFlag[1], set, p, stdout)
	case *exps != "":
		names := splitList(*exps)
		if len(names) != 2 || len(pos) != 1 {
			return usageError{"compare: --experiments wants two names A,B and one run folder (see 'logz compare --help')"}
		}
		return compareExperiments(pos[0], names[0], names[1], p, stdout)
	}
	if len(pos) < 2 {
		return usageError{fmt.Sprintf("compare: want two run folders or more, got %d (or --model A --model B, or RUN --experiments A,B; see 'logz compare --help')", len(pos))}
	}
	runs, err := readCompareRuns(pos)
	if err != nil {
		return err
	}
	c := report.Compare(runs)
	if err := report.RenderCompare(stdout, c, report.TableOptions{ASCII: *ascii}); err != nil {
		return err
	}
	if *out == "" {
		return nil
	}
	return writeCompareReports(*out, c, stdout)
}

// readCompareRuns reads each run folder's results.json and
// config.resolved.yaml. A run is named by its folder's base name, or by the
// path as given when two base names are the same.
func readCompareRuns(dirs []string) ([]report.CompareRun, error) {
	runs := make([]report.CompareRun, len(dirs))
	seen := map[string]int{}
	for _, d := range dirs {
		seen[filepath.Base(filepath.Clean(d))]++
	}
	for i, d := range dirs {
		rows, err := report.ReadResults(filepath.Join(d, config.ResultsFile))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("compare: %s has no %s: not a run folder, or its run wrote nothing yet", d, config.ResultsFile)
			}
			return nil, fmt.Errorf("compare: %w", err)
		}
		name := filepath.Base(filepath.Clean(d))
		if seen[name] > 1 {
			name = d
		}
		runs[i] = report.CompareRun{Name: name, Rows: rows}
		if b, err := os.ReadFile(filepath.Join(d, config.ResolvedFile)); err == nil {
			if runs[i].Config, err = config.Flatten(b); err != nil {
				return nil, fmt.Errorf("compare: %s: %w", filepath.Join(d, config.ResolvedFile), err)
			}
		}
	}
	return runs, nil
}

// writeCompareReports writes report.md and report.html of a comparison
// into dir, refusing a folder that holds a logz run (its own reports would
// be overwritten).
func writeCompareReports(dir string, c *report.Comparison, stdout io.Writer) error {
	if experiment.HoldsRun(dir) {
		return usageError{fmt.Sprintf("compare: --out %s holds a logz run, whose report.md and report.html would be overwritten; give another folder", dir)}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	title := "logz compare: " + runNames(c)
	md := filepath.Join(dir, config.ReportFile)
	if err := report.WriteFileAtomic(md, func(w io.Writer) error { return report.WriteCompareMarkdown(w, title, c) }); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	htmlPath := filepath.Join(dir, config.HTMLFile)
	if err := report.WriteFileAtomic(htmlPath, func(w io.Writer) error { return report.WriteCompareHTML(w, title, c) }); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s and %s\n", md, htmlPath)
	return nil
}

func runNames(c *report.Comparison) string {
	names := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		names[i] = r.Name
	}
	return strings.Join(names, " vs ")
}

// pairFlags are the settings of a paired verdict.
type pairFlags struct {
	chains, betas, gibbs, maxUnits, limit int
	schedule, start, split, dataDir       string
	seed                                  uint64
}

// pairedModel is one side of a paired verdict: a loaded model file.
type pairedModel struct {
	path string
	ckpt *models.Checkpoint
}

func loadPaired(path string) (pairedModel, error) {
	c, err := models.Load(path, family.Codecs())
	if err != nil {
		return pairedModel{}, fmt.Errorf("compare: %s: %w", path, err)
	}
	return pairedModel{path, c}, nil
}

// runSplit loads the split named split of the run that wrote the model,
// as that run measured it (its data, binarisation and seed, examples kept).
func runSplit(m pairedModel, split, dataDir string) (*data.Set, error) {
	rc := readRunContext(m.ckpt, m.path, io.Discard)
	if rc == nil {
		return nil, usageError{fmt.Sprintf("compare: %s does not record a logz run; give --data SPEC", m.path)}
	}
	_, _, _, splits, err := rc.load(dataDir)
	if err != nil {
		return nil, err
	}
	for _, s := range splits {
		if s.Name == split {
			return s.Data.(*data.Set), nil
		}
	}
	return nil, usageError{fmt.Sprintf("compare: the run of %s evaluated no split %q (--split)", m.path, split)}
}

// comparePaired gives the paired verdict on the models in files a and b
// on set (nil: the run's split of each, which must be the same bits).
func comparePaired(pathA, pathB string, set *data.Set, p pairFlags, stdout io.Writer) error {
	a, err := loadPaired(pathA)
	if err != nil {
		return err
	}
	b, err := loadPaired(pathB)
	if err != nil {
		return err
	}
	dataGiven := set != nil
	if !dataGiven {
		if set, err = runSplit(a, p.split, p.dataDir); err != nil {
			return err
		}
		sb, err := runSplit(b, p.split, p.dataDir)
		if err != nil {
			return err
		}
		fa, fb := set.Fingerprint(), sb.Fingerprint()
		if !fa.Same(fb) {
			return fmt.Errorf("compare: the runs of %s and %s measured different bits as their %s split (%s vs %s); give --data SPEC to measure both on the same examples",
				pathA, pathB, p.split, fa, fb)
		}
	}
	if p.limit > 0 && p.limit < set.N {
		set = set.Limit(p.limit)
	}
	if set.D != a.ckpt.Model.NumVisible() || set.D != b.ckpt.Model.NumVisible() {
		return fmt.Errorf("compare: the data has %d units per example, the models %d and %d visible units", set.D, a.ckpt.Model.NumVisible(), b.ckpt.Model.NumVisible())
	}
	mA, okA := a.ckpt.Model.(*models.RBM)
	mB, okB := b.ckpt.Model.(*models.RBM)
	if !okA || !okB {
		if ok, err := pairedExact(stdout, a, b, set, p.maxUnits); err != nil || ok {
			if err != nil {
				return fmt.Errorf("compare: %w", err)
			}
			return nil
		}
		if dataGiven {
			return fmt.Errorf("compare: --model with --data needs per-example values of both models: two RBMs (free energies and the AIS ratio of their log Z), or models whose log p(v) can be enumerated within --max-units %d (rbm, sbn, mob); %s is a %s and %s a %s: leave out --data to compare them by their runs' own final estimates on --split, or compare the runs with 'logz compare RUN RUN'",
				p.maxUnits, pathA, evalenv.Label(a.ckpt.Model), pathB, evalenv.Label(b.ckpt.Model))
		}
		return compareRunModels(stdout, a, b, p.split)
	}
	res, err := pairRBMs(mA, mB, set, p)
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	fp := set.Fingerprint()
	writePaired(stdout, pathA, pathB, mA, mB, fp, res, p)
	return nil
}

// pairRBMs runs eval.PairedRBM with the flags' AIS settings.
func pairRBMs(mA, mB *models.RBM, set *data.Set, p pairFlags) (eval.Paired, error) {
	if p.chains < 2 || p.betas < 1 {
		return eval.Paired{}, usageError{fmt.Sprintf("compare: --chains wants at least 2 and --betas at least 1, got %d and %d", p.chains, p.betas)}
	}
	if !slices.Contains(rbm.RatioStarts, p.start) {
		return eval.Paired{}, usageError{fmt.Sprintf("compare: --ratio-start wants one of %s, got %q", strings.Join(rbm.RatioStarts, ", "), p.start)}
	}
	sched, err := (&estim.Anneal{Betas: p.betas, Schedule: p.schedule}).BetaSchedule()
	if err != nil {
		return eval.Paired{}, usageError{"compare: " + err.Error()}
	}
	pr := eval.PairedRBM{AIS: eval.AIS{Runs: p.chains, Betas: sched, Seed: p.seed}, Start: p.start, GibbsSteps: p.gibbs, MaxExactUnits: p.maxUnits,
		MinESSFraction: rbm.DefaultRatio().MinESSFraction}
	return pr.Compare(mA, mB, set)
}

// writePaired prints a paired verdict of two RBMs: its parts and its
// words.
func writePaired(w io.Writer, pathA, pathB string, mA, mB *models.RBM, fp data.Provenance, r eval.Paired, p pairFlags) {
	fmt.Fprintf(w, "A: %s (%s)\nB: %s (%s)\n", pathA, mA.Label(), pathB, mB.Label())
	fmt.Fprintf(w, "Examples: %s\n", fp)
	fmt.Fprintf(w, "  mean[−F_B(v) + F_A(v)]   = %9.4f ± %.4f  (paired standard error over the %d examples)\n", r.FreeDiff, r.SEPaired, r.N)
	if r.Exact {
		fmt.Fprintf(w, "  log Z_B − log Z_A        = %9.4f ± 0       (both log Z enumerated exactly: no AIS)\n", r.LogRatio)
	} else {
		rt := r.Ratio
		fmt.Fprintf(w, "  log Z_B − log Z_A        = %9.4f ± %.4f  (AIS ratio, %d runs × %d β, start %s; ESS %.0f of %d)\n",
			r.LogRatio, r.SigmaRatio, p.chains, p.betas, rt.Start, rt.AIS.ESS, rt.AIS.Runs)
	}
	fmt.Fprintf(w, "  Δ = mean log p_B − mean log p_A = %.4f ± %.4f  (σ = √(SE_paired² + σ_ratio²); 95%%: [%.4f, %.4f])\n",
		r.Delta, r.Sigma, r.Delta-eval.VerdictZ*r.Sigma, r.Delta+eval.VerdictZ*r.Sigma)
	fmt.Fprintf(w, "Verdict: %s.\n", r.Verdict("A", "B"))
	for _, n := range r.Notes() {
		fmt.Fprintf(w, "  %s\n", n)
	}
}

// compareExperiments gives the paired verdict on two experiments of one
// run: for two RBMs from their model.npz on the run's split (paired over
// examples), else from the run's final estimates of both (errors
// combined, not paired: results.json keeps no per-example values).
func compareExperiments(dir, nameA, nameB string, p pairFlags, stdout io.Writer) error {
	rows, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	for _, n := range []string{nameA, nameB} {
		if !slices.Contains(report.Experiments(rows), n) {
			return usageError{fmt.Sprintf("compare: %s has no experiment %q (it has %s)", dir, n, strings.Join(report.Experiments(rows), ", "))}
		}
	}
	pa, pb := filepath.Join(dir, nameA, "model.npz"), filepath.Join(dir, nameB, "model.npz")
	_, errA := loadPaired(pa)
	_, errB := loadPaired(pb)
	if errA == nil && errB == nil {
		return comparePaired(pa, pb, nil, p, stdout)
	}
	// Rows written before results.json named their bits are judged by the
	// two experiments' data settings in the run's config.
	var sameData func() (diffs []string, ok bool)
	if b, err := os.ReadFile(filepath.Join(dir, config.ResolvedFile)); err == nil {
		if flat, err := config.Flatten(b); err == nil {
			sameData = func() ([]string, bool) { return report.ExperimentsDataDiffer(flat, nameA, nameB) }
		}
	}
	return compareFromRows(stdout, rows, nameA, nameB, "experiment "+nameA, "experiment "+nameB, p.split, sameData)
}

// compareRunModels gives the verdict on two model files written by logz
// run from the final rows of their experiments in their run folders (the
// folder above the experiment's).
func compareRunModels(w io.Writer, a, b pairedModel, split string) error {
	var rows []report.Row
	for _, m := range []struct {
		pairedModel
		as string
	}{{a, "A"}, {b, "B"}} {
		rc := readRunContext(m.ckpt, m.path, io.Discard)
		dir := filepath.Dir(filepath.Dir(m.path))
		if rc == nil || !experiment.HoldsRun(dir) {
			return fmt.Errorf("compare: %s is a %s, not an RBM, and is not in the folder of the logz run that trained it: its run's own estimates are what a verdict on it would rest on", m.path, m.ckpt.Model.TypeName())
		}
		all, err := report.ReadResults(filepath.Join(dir, config.ResultsFile))
		if err != nil {
			return fmt.Errorf("compare: %w", err)
		}
		for _, r := range report.Select(all, rc.exp.Name) {
			r.Experiment = m.as
			rows = append(rows, r)
		}
	}
	return compareFromRows(w, rows, "A", "B", a.path+" ("+a.ckpt.Model.TypeName()+")", b.path+" ("+b.ckpt.Model.TypeName()+")", split, nil)
}

// compareFromRows gives the verdict from the final rows of experiments a
// and b (described as descA, descB) on split: for each estimator configuration both ran with the same
// protocol, Δ = mean_B − mean_A ± √(σ_A² + σ_B²), σ each row's own error
// (report.LoglikError).
//
// sameData, if set, judges rows that record no data by the experiments'
// data settings (the run's config); such lines are marked ‡.
func compareFromRows(w io.Writer, rows []report.Row, a, b, descA, descB, split string, sameData func() ([]string, bool)) error {
	var ra, rb []*report.Row
	for i := range rows {
		r := &rows[i]
		if r.Stage != report.StageFinal || r.Split != split || r.MeanLoglik == nil || r.Estimator == "reference" {
			continue
		}
		switch r.Experiment {
		case a:
			ra = append(ra, r)
		case b:
			rb = append(rb, r)
		}
	}
	fmt.Fprintf(w, "A: %s\nB: %s\n", descA, descB)
	fmt.Fprintf(w, "From the final estimates in results.json on the %s split; each σ is the row's own estimator error together with the spread of its examples (se over the split), and the ± is √(σ_A² + σ_B²): results.json keeps no per-example values, so the pair is not paired over examples and the ± overstates the error of the difference (the examples are shared).\n", split)
	n, marked := 0, false
	for _, x := range ra {
		for _, y := range rb {
			if x.Estimator != y.Estimator || x.Init != y.Init || x.Betas != y.Betas || x.Round != y.Round {
				continue
			}
			lab := x.Estimator
			if x.Init != "" {
				lab += " (" + x.Init + ")"
			}
			if x.Betas > 0 {
				lab += fmt.Sprintf(" K=%d", x.Betas)
			}
			d := report.ProtocolDiffers(x, y)
			byConfig := false
			if k := slices.Index(d, report.NoDataRecorded); k >= 0 && sameData != nil {
				if diffs, ok := sameData(); ok {
					d, byConfig = append(slices.Delete(d, k, k+1), diffs...), true
				}
			}
			if len(d) > 0 {
				fmt.Fprintf(w, "  %s: not comparable: %s\n", lab, strings.Join(d, "; "))
				continue
			}
			if byConfig {
				lab += " ‡"
				marked = true
			}
			sa, okA := verdictError(x)
			sb, okB := verdictError(y)
			if !okA || !okB {
				continue
			}
			delta, sigma := *y.MeanLoglik-*x.MeanLoglik, math.Hypot(sa, sb)
			fmt.Fprintf(w, "  %s: Δ = %.4f ± %.4f; %s.\n", lab, delta, sigma, eval.Verdict("A", "B", delta, sigma))
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("compare: experiments %s and %s share no final estimate of the %s split with the same protocol", a, b, split)
	}
	if marked {
		fmt.Fprintln(w, "‡: the rows record no data (written before results.json named the bits); the two experiments' data settings in the run's config.resolved.yaml are the same, so they measured the same bits.")
	}
	return nil
}

// verdictError is the error of a row's mean log-likelihood as an estimate
// of the expected log-likelihood under the distribution its examples were
// drawn from: the estimator's own error (report.LoglikError) and the
// standard error over the examples, in quadrature. For exact, ais and chi2
// loglik_se is that spread, apart from the estimator's error; for the
// others it already is the error of the mean over the examples.
func verdictError(r *report.Row) (float64, bool) {
	e, ok := report.LoglikError(r)
	if !ok {
		return 0, false
	}
	if r.LoglikSE != nil && (r.Estimator == "exact" || (e != *r.LoglikSE && (r.Estimator == "ais" || r.Estimator == "chi2"))) {
		return math.Hypot(e, *r.LoglikSE), true
	}
	return e, true
}
