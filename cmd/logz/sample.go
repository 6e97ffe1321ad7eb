package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/imagegrid"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

const sampleUsage = `Usage: logz sample --model FILE.npz [--n 100] [--steps 1000] [--init q|data|random]
                   [--data SPEC-or-path] [--seed S] [--out samples.npy] [--png samples.png]
                   [--every K] [--mean]
       logz sample --model FILE.npz --compare q,random [--steps 1000] [flags]
       logz sample --model RBM-or-DBM.npz --betas 0.5,0.9,1 [--init base-rate|uniform]
                   [--data SPEC-or-path] [--steps 1000] [--sweeps 0] [flags]

Draws --n samples of a saved model of any family and writes them to --out
as an n×D float64 .npy (and, with --png, as a grid of tiles: D a square is
drawn as square images, an Ising model as its grid, other D as a row×col
layout of the units), saying on stderr how they were drawn:

  rbm        --n block-Gibbs chains (v → h → v) of --steps sweeps from --init;
             prints the chains' mean free energy F(v) ± its standard error
             every --every sweeps
  dbm        Gibbs chains of --steps sweeps (odd layers, then even) from --init
  dbn        Gibbs chains of --steps sweeps in the top RBM from --init, then a
             down-pass through the sigmoid layers
  ising      single-site Gibbs chains of --steps raster sweeps from --init
  sbn, arsbn, vae
             ancestral samples (top down); --steps and --init do not apply

The final visible states are written, or with --mean the probabilities
p(v=1|·) the last step drew them with (for the Gibbs families p(v=1|h) of
the last sweep — the grey images papers show).

Starts (--init; the default is q where the family has it, else random):
  q       (rbm) draws of a χ² proposal (Kuleshov & Ermon 2017 §5.2): the one
          saved in the checkpoint (by the chi2 trainer under chi2_q_, or by
          a tracked estimator under track_<i>_), else one fitted here (a
          mixture of --q-components Bernoulli products, --q-steps steps of
          the χ² fitter, started at the --data base rate if given, else
          uniform); its bound on log Z is printed
  data    random examples of --data (a dbn passes them up to its top RBM)
  random  uniform random states

--compare LIST (e.g. q,random; rbm) runs --n chains from each start instead
and prints, for each, the first sweep at which its mean free energy is
within 3 standard errors of the long-run level (the last 20% of the sweeps
of all the starts, pooled), its final mean F ± se and its own tail level,
marked * when it disagrees with the pooled one (the chains have not mixed);
it writes no samples.

--betas LIST (rbm, dbm) draws --n samples of each intermediate distribution
p_β ∝ f_β of the annealing path AIS uses (Burda, Grosse & Salakhutdinov
2015, Fig. 5): from the base-rate start (--init base-rate, the default;
the visible biases are the log-odds of --data, and a dbm's even hidden
layers' those of their mean-field posteriors, as its ais has them) or the
uniform one (--init uniform), each sample is an exact draw at β = 0 annealed linearly to β in
--steps block-Gibbs transitions, then --sweeps more at β. With --sweeps 0
and β = 1 it is a draw of the AIS model p_ann of --steps intermediate
distributions. One file per β: --out samples.npy writes
samples-beta0.5.npy, … (and --png likewise); sample i at β is keyed by
--seed, β and i.

--data is a data spec as for 'logz eval' (mnist:train|test,
fashion-mnist:train|test, digits:..., idx:PATH, npy:PATH, planted:...) or a
path: a directory of MNIST IDX files (its training images), a .npy file, or
an IDX file. Sample (chain) i's generators are keyed by --seed and i, so the output
does not depend on the number of CPUs.

--out and --png may not name the model, the --data file or each other
(also through a symbolic or hard link). Inside a logz run folder they are
written under the folder's lock, so never while a run, a merge or a
redraw writes there.

Flags:
`

// sampleStarts are the values of --init and --compare.
var sampleStarts = []string{sampling.InitQ, sampling.InitData, sampling.InitRandom}

func cmdSample(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	modelPath := fs.String("model", "", "model checkpoint (.npz) of any family (required)")
	n := fs.Int("n", 100, "number of samples (chains)")
	steps := fs.Int("steps", sampling.DefaultSampleSteps, "Gibbs sweeps per chain (the Gibbs families)")
	init := fs.String("init", "", "start of the chains: q, data or random (default: q where the family has it, else random)")
	compare := fs.String("compare", "", "comma-separated starts to compare (e.g. q,random): sweeps to reach the long-run mean free energy")
	spec := fs.String("data", "", "data for --init data and the base rate of a fitted q: a data spec or a path")
	dataDir := fs.String("data-dir", "", "directory of the MNIST/Fashion-MNIST IDX files")
	binarize := fs.String("binarize", data.Stochastic, "grey images (mnist:, fashion-mnist:, idx:): "+data.Methods)
	threshold := fs.Float64("threshold", data.DefaultThreshold, "cut t in (0,1) for --binarize threshold")
	seed := fs.Uint64("seed", 1, "seed of every random draw")
	out := fs.String("out", "samples.npy", "output .npy file (n×D float64), written atomically")
	pngPath := fs.String("png", "", "also draw the samples as a PNG grid of tiles to this file")
	every := fs.Int("every", 0, "print the chains' trace (rbm: mean free energy) every K sweeps (0: steps/10)")
	mean := fs.Bool("mean", false, "write the probabilities p(v=1|·) of the last step instead of the binary states")
	qf := sampling.QFitDefaults()
	qK := fs.Int("q-components", qf.Components, "components of a q fitted here")
	qSteps := fs.Int("q-steps", qf.Steps, "fitter steps of a q fitted here")
	qSamples := fs.Int("q-samples", qf.Fit.Samples, "draws per fitter step of a q fitted here")
	qLR := fs.Float64("q-lr", qf.Fit.LearningRate, "Adam step size of a q fitted here")
	betas := fs.String("betas", "", "comma-separated β in [0,1]: samples of the intermediate distributions p_β of the AIS path (rbm, dbm; --init base-rate|uniform), one --out/--png file per β")
	sweeps := fs.Int("sweeps", 0, "with --betas: transitions at β after the --steps annealing from β = 0")
	fs.Usage = func() { fmt.Fprint(fs.Output(), sampleUsage); printFlags(fs) }
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
	if given["betas"] {
		dopt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, DigitsDir: *dataDir, Binarize: data.Binarization{Method: *binarize, Threshold: *threshold, Seed: *seed}}
		if err := checkBinarizeFlags("sample", *binarize, *threshold); err != nil {
			return err
		}
		return sampleAnnealed(annealedArgs{model: *modelPath, betas: *betas, init: *init, spec: *spec, out: *out, png: *pngPath,
			n: *n, steps: *steps, sweeps: *sweeps, seed: *seed, dopt: dopt, given: given}, stderr)
	}
	if given["sweeps"] {
		return bad("--sweeps is for the annealed samples of --betas")
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
	var starts []string
	if given["init"] {
		starts = []string{*init}
	}
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
		for _, fl := range []string{"mean", "out", "png"} {
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
	if *mean && *steps < 1 && given["steps"] {
		return bad("--mean needs --steps ≥ 1 (p(v|h) comes from a sweep)")
	}
	needData := slices.Contains(starts, sampling.InitData)
	if needData && *spec == "" {
		return bad("--init data needs --data (a data spec or path)")
	}
	if *out == "" {
		return bad("--out wants a file name")
	}
	if *qK < 1 || *qK > chi2.MaxComponents {
		return bad("--q-components wants an integer in [1, %d], got %d", chi2.MaxComponents, *qK)
	}
	if *qSteps < 0 || *qSteps > family.MaxChi2Steps {
		return bad("--q-steps wants an integer in [0, %d] (family.MaxChi2Steps), got %d", family.MaxChi2Steps, *qSteps)
	}
	if *qSamples > family.MaxRuns {
		return bad("--q-samples wants an integer in [2, %d] (family.MaxRuns), got %d", family.MaxRuns, *qSamples)
	}
	if int64(*qSteps)*int64(*qSamples) > family.MaxChi2Draws {
		return bad("--q-steps × --q-samples = %d × %d draws is more than the limit of %d (family.MaxChi2Draws)", *qSteps, *qSamples, int64(family.MaxChi2Draws))
	}
	fitOpt := chi2.FitOptions{Samples: *qSamples, LearningRate: *qLR, Decay: 0.9}
	if err := fitOpt.Check(); err != nil {
		return bad("--q-samples/--q-lr: %v", err)
	}
	if err := checkBinarizeFlags("sample", *binarize, *threshold); err != nil {
		return err
	}
	var dspec string
	dopt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, DigitsDir: *dataDir, Binarize: data.Binarization{Method: *binarize, Threshold: *threshold, Seed: *seed}}
	if *spec != "" {
		if dspec, err = sampleDataSpec(*spec, &dopt); err != nil {
			return err
		}
	}

	if !given["compare"] {
		if err := checkOutputs(*modelPath, *spec, *out, *pngPath); err != nil {
			return err
		}
	}

	ckpt, err := models.Load(*modelPath, family.Codecs())
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	m := ckpt.Model
	fam, err := family.Lookup(m.TypeName())
	if err != nil {
		return fmt.Errorf("--model %s: %w", *modelPath, err)
	}
	sampler, ok := sampling.SamplerOf(fam)
	if !ok {
		return fmt.Errorf("--model %s: the %s family cannot draw samples", *modelPath, fam.Name)
	}
	inits := sampling.SampleInits(fam)
	if len(starts) == 0 && inits != nil {
		starts = []string{inits[0]}
		if slices.Contains(inits, sampling.InitQ) {
			starts = []string{sampling.InitQ}
		}
	}
	if inits == nil {
		for _, fl := range []string{"init", "steps", "every", "compare"} {
			if given[fl] && fl != "compare" {
				fmt.Fprintf(stderr, "logz sample: the %s family draws ancestral samples: --%s does not apply; ignored\n", fam.Name, fl)
			}
		}
		if given["compare"] {
			return fmt.Errorf("--compare compares the starts of Markov chains; a %s draws ancestral samples", fam.Name)
		}
		starts = nil
	}
	for _, s := range starts {
		if !slices.Contains(inits, s) {
			return fmt.Errorf("--init %s: the %s sampler starts its chains from %s", s, fam.Name, strings.Join(inits, " or "))
		}
	}
	mixer, canMix := sampling.MixerOf(fam)
	if given["compare"] && !canMix {
		return fmt.Errorf("--compare: the %s family has no mixing comparison (rbm has)", fam.Name)
	}
	useQ := slices.Contains(starts, sampling.InitQ)
	needData = slices.Contains(starts, sampling.InitData)
	if *spec != "" && !needData && !useQ {
		fmt.Fprintln(stderr, "logz sample: --data is used only by the data start and a fitted q; ignored")
		dspec = ""
	}
	if !useQ {
		for _, fl := range []string{"q-components", "q-steps", "q-samples", "q-lr"} {
			if given[fl] {
				fmt.Fprintf(stderr, "logz sample: --%s is used only by the q start; ignored\n", fl)
			}
		}
	}
	D := m.NumVisible()
	// Refused before any sampling: what --out and --png could not hold
	// (--compare writes neither).
	if !given["compare"] && int64(*n)*int64(D) > npyx.MaxElements {
		return bad("--n %d chains × %d visible units = %d values is more than a .npy logz reads back (%d, npyx.MaxElements); lower --n", *n, D, int64(*n)*int64(D), npyx.MaxElements)
	}
	if *pngPath != "" {
		h, w, _ := sampling.TileShape(m)
		if err := imagegrid.CheckSize(*n, h, w, imagegrid.Options{}); err != nil {
			return bad("--png with --n %d: %v; lower --n or leave out --png", *n, err)
		}
	}
	o := sampling.SampleOptions{N: *n, Steps: *steps, Mean: *mean, Seed: *seed, Workers: runtime.GOMAXPROCS(0), Checkpoint: ckpt,
		QFit:   sampling.QFit{Components: *qK, Steps: *qSteps, Fit: fitOpt},
		Notice: func(msg string) { fmt.Fprintln(stderr, "logz sample: "+msg) }}
	if inits == nil {
		o.Steps = 0
	}
	if dspec != "" {
		set, err := data.Load(dspec, dopt)
		if err != nil {
			return fmt.Errorf("--data: %w", err)
		}
		if set.D != D {
			return fmt.Errorf("--data %s has %d units per example but the model in %s has %d visible units", *spec, set.D, *modelPath, D)
		}
		if set.N == 0 {
			return fmt.Errorf("--data %s has no examples", *spec)
		}
		o.Data = set
		if useQ {
			o.QFit.BaseRate = data.LogOdds(set, 1)
		}
	}
	if given["compare"] {
		res, err := mixer.Mixing(m, o, starts)
		if err != nil {
			return err
		}
		printMixing(stdout, res, *every)
		return nil
	}
	if len(starts) > 0 {
		o.Init = starts[0]
	}
	if *mean && o.Steps < 1 && inits != nil {
		return bad("--mean needs --steps ≥ 1 (p(v|h) comes from a sweep)")
	}
	d, err := sampler.Sample(m, o)
	if err != nil {
		return err
	}
	if tr := d.Trace; tr != nil {
		fmt.Fprintf(stdout, "%d chains from %s, %d sweeps: %s ± se\n", d.N, d.Init, d.Steps, tr.Name)
		fmt.Fprintf(stdout, "%8s  %12s  %8s\n", "sweep", "mean", "se")
		for t := range tr.Mean {
			if t%*every == 0 || t == len(tr.Mean)-1 {
				fmt.Fprintf(stdout, "%8d  %12.4f  %8.4f\n", t, tr.Mean[t], tr.SE[t])
			}
		}
	}
	release, err := lockRunFolders("sample", *out, *pngPath)
	if err != nil {
		return err
	}
	defer release()
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error {
		return npyio.Write(w, mat.NewDense(d.N, d.D, d.X))
	}); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	fmt.Fprintf(stderr, "logz sample: %s\nlogz sample: wrote the %d×%d %s (float64) to %s\n", d.What, d.N, d.D, d.Values, *out)
	if *pngPath != "" {
		h, w, _ := sampling.TileShape(m)
		img, err := imagegrid.Draw(d.X, d.N, h, w, imagegrid.Options{})
		if err == nil {
			err = imagegrid.WritePNG(*pngPath, img)
		}
		if err != nil {
			return fmt.Errorf("--png: %w", err)
		}
		fmt.Fprintf(stderr, "logz sample: drew them as %d tiles of %d×%d to %s\n", d.N, h, w, *pngPath)
	}
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

// samePath reports whether the paths a and b name one file: equal once
// made absolute and cleaned, or, where both exist, the same file
// (os.SameFile: a symbolic or hard link to it).
func samePath(a, b string) bool {
	aa, errA := filepath.Abs(a)
	bb, errB := filepath.Abs(b)
	if errA == nil && errB == nil && aa == bb {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// checkOutputs refuses a --out or --png of logz sample that would
// overwrite the model it reads, the --data file or each other.
func checkOutputs(model, dataArg, out, png string) error {
	inputs := []struct{ flag, path string }{{"--model", model}}
	if dataArg != "" {
		path := dataArg
		if sp, err := data.ParseSpec(dataArg); err == nil {
			path = sp.Path // "" for a spec without a file
		}
		if path != "" {
			inputs = append(inputs, struct{ flag, path string }{"--data", path})
		}
	}
	outputs := []struct{ flag, path string }{{"--out", out}}
	if png != "" {
		outputs = append(outputs, struct{ flag, path string }{"--png", png})
	}
	for i, o := range outputs {
		for _, in := range inputs {
			if samePath(o.path, in.path) {
				return usageError{fmt.Sprintf("sample: %s %s is the file %s reads (%s); writing the samples there would replace it: choose another %s", o.flag, o.path, in.flag, in.path, o.flag)}
			}
		}
		for _, p := range outputs[:i] {
			if samePath(o.path, p.path) {
				return usageError{fmt.Sprintf("sample: %s %s and %s %s are one file; one would replace the other: give them different names", p.flag, p.path, o.flag, o.path)}
			}
		}
	}
	return nil
}

// lockRunFolders takes the lock of every logz run folder that holds one
// of paths (the nearest folder above it that holds a run), so that the
// command cmd (sample, export) does not write into a run folder while a
// run, a merge or a redraw writes it; release drops them.
func lockRunFolders(cmd string, paths ...string) (release func(), err error) {
	var held []func() error
	release = func() {
		for _, r := range held {
			r()
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		dir := runFolderOf(p)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		r, err := experiment.LockFolder(dir)
		if err != nil {
			release()
			return nil, fmt.Errorf("%s: %s lies in the logz run folder %s: %w", cmd, p, dir, err)
		}
		held = append(held, r)
	}
	return release, nil
}

// runFolderOf returns the nearest folder above path that holds a logz run,
// or "".
func runFolderOf(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := filepath.Dir(abs); ; {
		if experiment.HoldsRun(dir) {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
