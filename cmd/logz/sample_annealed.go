package main

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family"
	dbmfam "github.com/logz-ml/logz/family/dbm"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/atomicfile"
	"github.com/logz-ml/logz/internal/imagegrid"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// Starts of the annealing path of --betas: AIS's (estim.AIS.Init).
const (
	annealBaseRate = "base-rate"
	annealUniform  = "uniform"
)

// annealedArgs are the flags of `logz sample --betas`.
type annealedArgs struct {
	model, betas, init, spec, out, png string
	n, steps, sweeps                   int
	seed                               uint64
	dopt                               data.Options
	given                              map[string]bool
}

// parseBetas reads --betas: distinct numbers in [0, 1].
func parseBetas(s string) ([]float64, error) {
	var out []float64
	for _, f := range splitList(s) {
		b, err := strconv.ParseFloat(f, 64)
		if err != nil || !(b >= 0 && b <= 1) {
			return nil, fmt.Errorf("--betas wants numbers in [0, 1], got %q", f)
		}
		if slices.Contains(out, b) {
			return nil, fmt.Errorf("--betas: %s is listed twice", f)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--betas: no β given (e.g. --betas 0.5,0.9,1)")
	}
	return out, nil
}

// betaPath returns path with "-beta<β>" before its extension:
// samples.npy → samples-beta0.5.npy.
func betaPath(path string, beta float64) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-beta" + strconv.FormatFloat(beta, 'g', -1, 64) + ext
}

// annealPath returns the AIS path of the rbm or dbm (the other nil) from
// the base-rate start of set, or the uniform one when set is nil: as the
// family's ais builds it (for a dbm, the even hidden layers' base rates are
// the log-odds of their mean-field posterior means over
// dbm.HiddenBaseExamples examples of set).
func annealPath(rbm *models.RBM, d *models.DBM, set *data.Set) (inference.Path, error) {
	var vb []float64
	if set != nil {
		vb = data.LogOdds(set, 1)
	}
	if rbm != nil {
		return inference.NewBaseRatePath(rbm, vb)
	}
	if set == nil {
		return inference.NewDBMPath(d, nil)
	}
	hb, err := eval.DBMHiddenBaseRate(d, set, dbmfam.HiddenBaseExamples, runtime.GOMAXPROCS(0))
	if err != nil {
		return nil, err
	}
	return inference.NewDBMPathBase(d, eval.DBMBase(vb, hb))
}

// sampleAnnealed is `logz sample --betas`: samples of the intermediate
// distributions p_β of the annealing path AIS uses for an RBM, one .npy
// (and PNG grid) per β.
func sampleAnnealed(a annealedArgs, stderr io.Writer) error {
	bad := func(format string, v ...any) error { return usageError{"sample: " + fmt.Sprintf(format, v...)} }
	betas, err := parseBetas(a.betas)
	if err != nil {
		return bad("%v", err)
	}
	for _, fl := range []string{"compare", "mean", "every", "q-components", "q-steps", "q-samples", "q-lr"} {
		if a.given[fl] {
			return bad("--%s does not apply to the annealed samples of --betas", fl)
		}
	}
	if a.init == "" {
		a.init = annealBaseRate
	}
	if a.init != annealBaseRate && a.init != annealUniform {
		return bad("--init with --betas wants the start of the AIS path, base-rate or uniform, got %q", a.init)
	}
	if a.init == annealBaseRate && a.spec == "" {
		return bad("--init base-rate (the default with --betas) needs --data, whose log-odds are the start's visible biases (AIS's base rate is the training data's); or use --init uniform")
	}
	if a.n < 1 || a.n > eval.MaxGibbsChains {
		return bad("--n wants a number of samples in [1, %d], got %d", eval.MaxGibbsChains, a.n)
	}
	if a.steps < 0 || a.steps > eval.MaxGibbsSteps || a.sweeps < 0 || a.sweeps > eval.MaxGibbsSteps {
		return bad("--steps and --sweeps want numbers of transitions in [0, %d], got %d and %d", eval.MaxGibbsSteps, a.steps, a.sweeps)
	}
	if a.out == "" {
		return bad("--out wants a file name")
	}
	for _, b := range betas {
		png := ""
		if a.png != "" {
			png = betaPath(a.png, b)
		}
		if err := checkOutputs(a.model, a.spec, betaPath(a.out, b), png); err != nil {
			return err
		}
	}
	ckpt, err := models.Load(a.model, family.Codecs())
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	m := ckpt.Model
	rbm, isRBM := m.(*models.RBM)
	dbm, isDBM := m.(*models.DBM)
	if !isRBM && !isDBM {
		return fmt.Errorf("--model %s: --betas draws from the AIS path of an rbm or a dbm; this is a %s", a.model, m.TypeName())
	}
	D := m.NumVisible()
	if int64(a.n)*int64(D) > npyx.MaxElements {
		return bad("--n %d samples × %d visible units is more than a .npy logz reads back (%d); lower --n", a.n, D, npyx.MaxElements)
	}
	h, w, _ := sampling.TileShape(m)
	if a.png != "" {
		if err := imagegrid.CheckSize(a.n, h, w, imagegrid.Options{}); err != nil {
			return bad("--png with --n %d: %v; lower --n or leave out --png", a.n, err)
		}
	}
	var set *data.Set
	if a.init == annealBaseRate {
		dspec, err := sampleDataSpec(a.spec, &a.dopt)
		if err != nil {
			return err
		}
		if set, err = data.Load(dspec, a.dopt); err != nil {
			return fmt.Errorf("--data: %w", err)
		}
		if set.D != D || set.N == 0 {
			return fmt.Errorf("--data %s has %d examples of %d units; the model in %s has %d visible units", a.spec, set.N, set.D, a.model, D)
		}
	} else if a.spec != "" {
		fmt.Fprintln(stderr, "logz sample: --data is used only by the base-rate start; ignored")
	}
	path, err := annealPath(rbm, dbm, set)
	if err != nil {
		return err
	}
	release, err := lockRunFolders("sample", a.out, a.png)
	if err != nil {
		return err
	}
	defer release()
	s := eval.AnnealedSampler{Steps: a.steps, Sweeps: a.sweeps, Seed: a.seed, Workers: runtime.GOMAXPROCS(0)}
	for _, b := range betas {
		bits, D, err := s.Sample(path, b, a.n)
		if err != nil {
			return err
		}
		x := make([]float64, len(bits))
		for i, v := range bits {
			x[i] = float64(v)
		}
		out := betaPath(a.out, b)
		if err := atomicfile.WriteFile(out, func(w io.Writer) error { return npyio.Write(w, mat.NewDense(a.n, D, x)) }); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(stderr, "logz sample: β = %s: %d samples of p_β on the AIS path from the %s start (%d steps annealing from β = 0, then %d sweeps at β); wrote the %d×%d binary states (float64) to %s\n",
			strconv.FormatFloat(b, 'g', -1, 64), a.n, a.init, a.steps, a.sweeps, a.n, D, out)
		if a.png != "" {
			png := betaPath(a.png, b)
			img, err := imagegrid.Draw(x, a.n, h, w, imagegrid.Options{})
			if err == nil {
				err = imagegrid.WritePNG(png, img)
			}
			if err != nil {
				return fmt.Errorf("--png: %w", err)
			}
			fmt.Fprintf(stderr, "logz sample: drew them as %d tiles of %d×%d to %s\n", a.n, h, w, png)
		}
	}
	return nil
}
