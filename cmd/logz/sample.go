package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/chi2"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

const sampleUsage = `Usage: logz sample --model FILE.npz [--n 100] [--steps 1000] [--init q|data|random]
                   [--data SPEC-or-path] [--seed S] [--out samples.npy] [--every K] [--mean]
       logz sample --model FILE.npz --compare q,random [--steps 1000] [flags]

Runs --n block-Gibbs chains (v → h → v) of an RBM checkpoint for --steps
sweeps and writes the final visible states (with --mean the probabilities
p(v=1|h) of the last sweep) to --out as an n×D float64 .npy, printing the
chains' mean free energy F(v) ± its standard error every --every sweeps.

Starts (--init):
  q       draws of a χ² proposal (Kuleshov & Ermon 2017 §5.2): the one saved
          in the checkpoint (by the chi2 trainer under chi2_q_, or by a
          tracked estimator under track_<i>_), else one fitted here (a
          mixture of --q-components Bernoulli products, --q-steps steps of
          the χ² fitter, started at the --data base rate if given, else
          uniform); its bound on log Z is printed
  data    random examples of --data
  random  uniform random states

--compare LIST (e.g. q,random) runs --n chains from each start instead and
prints, for each, the first sweep at which its mean free energy is within
3 standard errors of the long-run level (the last 20% of the sweeps of all
the starts, pooled), its final mean F ± se and its own tail level, marked *
when it disagrees with the pooled one (the chains have not mixed); it
writes no samples.

--data is a data spec as for 'logz eval' (mnist:train|test,
fashion-mnist:train|test, idx:PATH, npy:PATH, planted:...) or a path: a
directory of MNIST IDX files (its training images), a .npy file, or an IDX
file. Chain c's generators are keyed by --seed and c, so the output does not
depend on the number of CPUs.

Flags:
`

// Seed labels of the command's streams (the chains derive their own).
const (
	keySampleFit uint64 = iota + 1
	keySampleBound
	keySampleChains
)

// sampleStarts are the values of --init and --compare.
var sampleStarts = []string{"q", "data", "random"}

func cmdSample(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	modelPath := fs.String("model", "", "RBM checkpoint (.npz) (required)")
	n := fs.Int("n", 100, "number of chains")
	steps := fs.Int("steps", 1000, "Gibbs sweeps per chain")
	init := fs.String("init", "q", "start of the chains: q, data or random")
	compare := fs.String("compare", "", "comma-separated starts to compare (e.g. q,random): sweeps to reach the long-run mean free energy")
	spec := fs.String("data", "", "data for --init data and the base rate of a fitted q: a data spec or a path")
	dataDir := fs.String("data-dir", "", "directory of the MNIST/Fashion-MNIST IDX files")
	binarize := fs.String("binarize", data.Stochastic, "grey images (mnist:, fashion-mnist:, idx:): "+data.Methods)
	threshold := fs.Float64("threshold", data.DefaultThreshold, "cut t in (0,1) for --binarize threshold")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	out := fs.String("out", "samples.npy", "output .npy file (n×D float64), written atomically")
	every := fs.Int("every", 0, "print the mean free energy every K sweeps (0: steps/10)")
	mean := fs.Bool("mean", false, "write p(v=1|h) of the last sweep instead of the binary states")
	qK := fs.Int("q-components", 20, "components of a q fitted here")
	qSteps := fs.Int("q-steps", 500, "fitter steps of a q fitted here")
	qSamples := fs.Int("q-samples", 100, "draws per fitter step of a q fitted here")
	qLR := fs.Float64("q-lr", 0.05, "Adam step size of a q fitted here")
	fs.Usage = func() { fmt.Fprint(fs.Output(), sampleUsage); fs.PrintDefaults() }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("sample: unexpected argument %q (flags only; see 'logz sample --help')", pos[0])}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	bad := func(format string, a ...any) error { return usageError{"sample: " + fmt.Sprintf(format, a...)} }
	if *modelPath == "" {
		return bad("--model is required (see 'logz sample --help')")
	}
	if *n < 1 || *n > eval.MaxGibbsChains {
		return bad("--n wants a number of chains in [1, %d], got %d", eval.MaxGibbsChains, *n)
	}
	if *steps < 0 || *steps > eval.MaxGibbsSteps {
		return bad("--steps wants a number of sweeps in [0, %d], got %d", eval.MaxGibbsSteps, *steps)
	}
	if *every < 0 {
		return bad("--every wants an integer ≥ 0 (0: steps/10), got %d", *every)
	}
	if *every == 0 {
		*every = max(1, *steps/10)
	}
	starts := []string{*init}
	if given["compare"] {
		if given["init"] {
			return bad("--init and --compare exclude each other (--compare lists the starts)")
		}
		if starts = splitList(*compare); len(starts) == 0 {
			return bad("--compare: no start given (known: %s)", strings.Join(sampleStarts, ", "))
		}
		if *steps < 1 {
			return bad("--compare needs --steps ≥ 1")
		}
		for _, fl := range []string{"mean", "out"} {
			if given[fl] {
				return bad("--%s is for samples, and --compare writes none", fl)
			}
		}
	}
	for i, s := range starts {
		if !slices.Contains(sampleStarts, s) {
			flagName := "--init"
			if given["compare"] {
				flagName = "--compare"
			}
			return bad("%s wants q, data or random, got %q%s", flagName, s, config.DidYouMean(s, sampleStarts))
		}
		if slices.Contains(starts[:i], s) {
			return bad("--compare: %s is listed twice", s)
		}
	}
	if *mean && *steps < 1 {
		return bad("--mean needs --steps ≥ 1 (p(v|h) comes from a sweep)")
	}
	needData := slices.Contains(starts, "data")
	if needData && *spec == "" {
		return bad("--init data needs --data (a data spec or path)")
	}
	if *out == "" {
		return bad("--out wants a file name")
	}
	useQ := slices.Contains(starts, "q")
	if useQ {
		if *qK < 1 || *qK > chi2.MaxComponents {
			return bad("--q-components wants an integer in [1, %d], got %d", chi2.MaxComponents, *qK)
		}
		if *qSteps < 0 {
			return bad("--q-steps wants an integer ≥ 0, got %d", *qSteps)
		}
	}
	fitOpt := chi2.FitOptions{Samples: *qSamples, LearningRate: *qLR, Decay: 0.9}
	if err := fitOpt.Check(); err != nil {
		return bad("--q-samples/--q-lr: %v", err)
	}
	if err := checkBinarizeFlags("sample", *binarize, *threshold); err != nil {
		return err
	}
	if *spec != "" && !needData && !useQ {
		fmt.Fprintln(stderr, "logz sample: --data is used only by the data start and a fitted q; ignored")
		*spec = ""
	}
	var dspec string
	dopt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, Binarize: data.Binarization{Method: *binarize, Threshold: *threshold, Seed: *seed}}
	if *spec != "" {
		if dspec, err = sampleDataSpec(*spec, &dopt); err != nil {
			return err
		}
	}

	ckpt, err := models.Load(*modelPath)
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	m, ok := ckpt.Model.(*models.RBM)
	if !ok {
		return fmt.Errorf("sample supports rbm checkpoints; %s is not supported yet", ckpt.Model.TypeName())
	}
	var set *data.Set
	if dspec != "" {
		if set, err = data.Load(dspec, dopt); err != nil {
			return fmt.Errorf("--data: %w", err)
		}
		if set.D != m.NVis {
			return fmt.Errorf("--data %s has %d units per example but the model in %s has %d visible units", *spec, set.D, *modelPath, m.NVis)
		}
		if set.N == 0 {
			return fmt.Errorf("--data %s has no examples", *spec)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	startOf := map[string]eval.Start{"random": eval.UniformStart}
	if set != nil {
		startOf["data"] = eval.RowsStart(set.X, set.D)
	}
	if useQ {
		q, err := sampleProposal(ckpt, m, set, *qK, *qSteps, fitOpt, *seed, workers, given, stderr)
		if err != nil {
			return err
		}
		startOf["q"] = eval.ProposalStart(q)
	}
	g := eval.Gibbs{Chains: *n, Steps: *steps, Seed: seeds.Derive(*seed, keySampleChains), Workers: workers, Means: *mean}
	if given["compare"] {
		list := make([]eval.Start, len(starts))
		for i, s := range starts {
			list[i] = startOf[s]
		}
		res, err := g.Mixing(m, starts, list)
		if err != nil {
			return err
		}
		printMixing(stdout, res, *every)
		return nil
	}
	r, err := g.Run(m, startOf[starts[0]])
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d chains from %s, %d sweeps: mean free energy F(v) ± se\n", *n, starts[0], *steps)
	fmt.Fprintf(stdout, "%8s  %12s  %8s\n", "sweep", "mean F", "se")
	for t := 0; t <= *steps; t++ {
		if t%*every == 0 || t == *steps {
			mu, se := r.MeanF(t)
			fmt.Fprintf(stdout, "%8d  %12.4f  %8.4f\n", t, mu, se)
		}
	}
	vals := r.Means
	what := "p(v=1|h) of the last sweep"
	if !*mean {
		what = "final visible states"
		vals = make([]float64, len(r.Final))
		for i, b := range r.Final {
			vals[i] = float64(b)
		}
	}
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error {
		return npyio.Write(w, mat.NewDense(*n, m.NVis, vals))
	}); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(stderr, "logz sample: wrote the %s (%d×%d float64) to %s\n", what, *n, m.NVis, *out)
	return nil
}

// printMixing prints the mixing comparison: the level, then one line per
// start, then the mean free energies every `every` sweeps.
func printMixing(w io.Writer, res *eval.MixingResult, every int) {
	S := len(res.Rows[0].MeanF) - 1
	fmt.Fprintf(w, "long-run mean free energy (sweeps %d–%d, all starts): %.4f ± %.4f\n", res.TailFrom, S, res.Level, res.LevelSE)
	fmt.Fprintf(w, "%-8s  %16s  %22s  %22s\n", "start", "sweeps to level", "final mean F ± se", "own tail level ± se")
	var unmixed []string
	for _, r := range res.Rows {
		reach := strconv.Itoa(r.Steps)
		if r.Steps < 0 {
			reach = fmt.Sprintf("> %d", S)
		}
		mark := ""
		if !r.Agrees {
			mark, unmixed = " *", append(unmixed, r.Start)
		}
		fmt.Fprintf(w, "%-8s  %16s  %13.4f ± %.4f  %13.4f ± %.4f%s\n", r.Start, reach, r.FinalF, r.FinalSE, r.TailF, r.TailSE, mark)
	}
	if len(unmixed) > 0 {
		fmt.Fprintf(w, "* the tail level of %s is more than %d standard errors from the pooled level: the starts have not reached one distribution within %d sweeps (the chains have not mixed), so the sweeps to level mean little; run longer\n",
			strings.Join(unmixed, ", "), eval.MixingZ, S)
	}
	fmt.Fprintf(w, "\n%8s", "sweep")
	for _, r := range res.Rows {
		fmt.Fprintf(w, "  %22s", "mean F ± se ("+r.Start+")")
	}
	fmt.Fprintln(w)
	for t := 0; t <= S; t++ {
		if t%every != 0 && t != S {
			continue
		}
		fmt.Fprintf(w, "%8d", t)
		for _, r := range res.Rows {
			fmt.Fprintf(w, "  %13.4f ± %6.4f", r.MeanF[t], r.SE[t])
		}
		fmt.Fprintln(w)
	}
}

// sampleDataSpec turns --data into a data spec: a spec is kept; a
// directory is MNIST's (its training images, mnist:train with the
// directory as --data-dir); a .npy file is npy:PATH and another file
// idx:PATH.
func sampleDataSpec(s string, opt *data.Options) (string, error) {
	if _, err := data.ParseSpec(s); err == nil {
		return s, nil
	} else if fi, serr := os.Stat(s); serr == nil {
		switch {
		case fi.IsDir():
			opt.DataDir = s
			return "mnist:train", nil
		case strings.HasSuffix(strings.ToLower(s), ".npy"):
			return "npy:" + s, nil
		default:
			return "idx:" + s, nil
		}
	} else if strings.Contains(s, ":") {
		return "", usageError{"sample: --data: " + err.Error()}
	}
	return "", usageError{fmt.Sprintf("sample: --data: %q is neither a data spec (%s) nor an existing file or directory", s, data.SpecForms)}
}

// sampleProposal returns the χ² proposal that starts the chains: the one
// saved in the checkpoint under chi2_q_ or track_<i>_ (the first that
// loads), else a mixture fitted here. It reports which, and its bound.
func sampleProposal(ckpt *models.Checkpoint, m *models.RBM, set *data.Set, K, steps int, opt chi2.FitOptions, seed uint64, workers int, given map[string]bool, stderr io.Writer) (chi2.Proposal, error) {
	target := chi2.RBMTarget{M: m}
	bound := func(q chi2.Proposal, what string) error {
		e, err := chi2.Bound(target, q, 2000, 20, seeds.Derive(seed, keySampleBound), workers)
		if err != nil {
			return fmt.Errorf("the χ² bound of %s: %w", what, err)
		}
		fmt.Fprintf(stderr, "logz sample: χ² bound of q: log Z ≤ %.4f ± %.4f (2000 draws; biased low, ESS %.0f)\n", e.LogZ, e.SE, e.ESS)
		return nil
	}
	for _, prefix := range savedProposals(ckpt.Bytes) {
		f, err := chi2.LoadState(prefix, opt, ckpt.State, ckpt.Bytes)
		if err == nil && f.Q.Dim() != m.NVis {
			err = fmt.Errorf("it has %d units, the model %d", f.Q.Dim(), m.NVis)
		}
		if err != nil {
			fmt.Fprintf(stderr, "logz sample: the proposal saved under %s cannot start the chains: %v\n", prefix, err)
			continue
		}
		fmt.Fprintf(stderr, "logz sample: q is the χ² proposal saved in the checkpoint under %s (%s, shape %v, %d fitter steps)\n", prefix, f.Q.Kind(), f.Q.Shape(), f.Steps)
		for _, fl := range []string{"q-components", "q-steps", "q-samples", "q-lr"} {
			if given[fl] {
				fmt.Fprintf(stderr, "logz sample: --%s is used only when q is fitted here; ignored\n", fl)
			}
		}
		return f.Q, bound(f.Q, "the saved proposal")
	}
	var base []float64
	from := "uniform"
	if set != nil {
		base, from = data.LogOdds(set, 1), "the data base rate"
	}
	rng := rand.New(rand.NewPCG(seeds.Derive(seed, keySampleFit), seeds.Derive(seed, keySampleFit, 1)))
	q, err := chi2.NewMixture(m.NVis, K, base, 0.5, rng)
	if err != nil {
		return nil, err
	}
	f, err := chi2.NewFitter(q, opt)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	logp := target.NewLogP()
	for range steps {
		if _, err := f.Step(logp, rng); err != nil {
			return nil, fmt.Errorf("fitting q: %w", err)
		}
	}
	fmt.Fprintf(stderr, "logz sample: no χ² proposal in the checkpoint; fitted a mixture of %d Bernoulli products from %s (%d steps of %d draws) in %s\n",
		K, from, steps, opt.Samples, time.Since(t0).Round(time.Millisecond))
	return q, bound(q, "the fitted proposal")
}

// savedProposals lists the prefixes under which a checkpoint's state holds
// a fitted proposal: chi2_q_ first, then track_<i>_ by increasing i.
func savedProposals(b map[string][]byte) []string {
	var out, track []string
	if chi2.HasState("chi2_q_", b) {
		out = append(out, "chi2_q_")
	}
	for k := range b {
		rest, ok := strings.CutPrefix(k, "track_")
		if !ok {
			continue
		}
		i, ok := strings.CutSuffix(rest, "_kind")
		if _, err := strconv.Atoi(i); ok && err == nil {
			track = append(track, "track_"+i+"_")
		}
	}
	slices.SortFunc(track, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(a, "track_"), "_"))
		y, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(b, "track_"), "_"))
		return x - y
	})
	return append(out, track...)
}
