package config

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The accepted values of the enumerated keys, in one place.
var (
	binarizeModes   = []string{"stochastic", "threshold", "none"}
	visibleBiasInit = []string{"base-rate", "zero"}
	trainMethods    = []string{"cd", "pcd"}
	lrSchedules     = []string{"constant", "linear", "exponential"}
	splitNames      = []string{"train", "valid", "test"}
	aisSchedules    = []string{"linear", "2008"}
	aisInits        = []string{"base-rate", "uniform"}
	controlVariates = []string{"alpha1", "fit", "none"}
)

// knownSize holds the number of examples of the parts of the built-in data
// sets (used to check validation and limit settings early).
var knownSize = map[string]map[string]int{
	"mnist":         {"train": 60000, "test": 10000},
	"fashion-mnist": {"train": 60000, "test": 10000},
}

// maxExactUnits is the most units the exact estimator may enumerate.
const maxExactUnits = 40

// maxPlantedEnum bounds min(visible, hidden) of the planted RBM, whose exact
// sampler enumerates the smaller layer (data.MaxPlantedEnum; a test keeps
// the two equal).
const maxPlantedEnum = 20

// validator checks one decoded experiment, field by field and across fields.
type validator struct {
	*scope
	opt Options
}

// check reports "expected <want>, got <got>" at rel unless ok.
func (v *validator) check(rel string, ok bool, want string, got any) {
	if !ok {
		v.errorAt(rel, "expected %s, got %s", want, show(got))
	}
}

// enum checks that val is one of allowed.
func (v *validator) enum(rel, val string, allowed []string) bool {
	if slices.Contains(allowed, val) {
		return true
	}
	v.errorAt(rel, "expected %s, got %q%s", orList(allowed), val, didYouMean(val, allowed))
	return false
}

// crossf reports a cross-field problem at path rel, on the line of lineRel.
func (v *validator) crossf(rel, lineRel, format string, args ...any) {
	v.errorf(v.lineOf(lineRel), rel, format, args...)
}

func show(x any) string {
	if s, ok := x.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(x)
}

// orList formats {a, b, c} as "a, b or c".
func orList(s []string) string {
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func (v *validator) experiment(e *Experiment) {
	switch {
	case e.Name == "":
		v.errorAt("", "missing required key \"name\" (a unique name of letters, digits, '.', '_' or '-')")
	case !validName(e.Name):
		v.errorAt("name", "expected a name of letters, digits, '.', '_' or '-' (it becomes a directory name), got %q", e.Name)
	}
	train, trainOK := v.dataSpec("data.train", e.Data.Train, "mnist:train")
	v.dataSpec("data.test", e.Data.Test, "mnist:test")
	v.data(e, train, trainOK)
	v.model(&e.Model)
	v.train(&e.Train)
	if e.Model.Type == "dbm" && e.Train.Method != "pcd" {
		v.crossf("train.method", "train.method", "a dbm is trained jointly with persistent chains (PCD with a mean-field positive phase): set train.method: pcd (got %q; pretraining has its own train.pretrain.method)", e.Train.Method)
	}
	v.evaluate(e, train, trainOK)
}

func (v *validator) dataSpec(rel, s, example string) (DataSpec, bool) {
	if s == "" {
		v.errorAt(rel, "missing required key (a data spec such as %s; known: %s)", example, dataSpecForms())
		return DataSpec{}, false
	}
	d, err := ParseDataSpec(s)
	if err != nil {
		v.errorAt(rel, "%v", err)
		return DataSpec{}, false
	}
	return d, true
}

// plantedSize is the size of a planted split.
func plantedSize(p Planted, part string) int {
	switch part {
	case "train":
		return p.Train
	case "valid":
		return p.Valid
	}
	return p.Test
}

func (v *validator) data(e *Experiment, train DataSpec, trainOK bool) {
	d := &e.Data
	p := d.Planted
	v.check("data.validation", d.Validation >= 0, "a non-negative integer", d.Validation)
	v.check("data.limit_train", d.LimitTrain >= 0, "a non-negative integer (0 = all)", d.LimitTrain)
	v.check("data.limit_test", d.LimitTest >= 0, "a non-negative integer (0 = all)", d.LimitTest)
	v.enum("data.binarize", d.Binarize, binarizeModes)
	v.check("data.threshold", d.Threshold > 0 && d.Threshold < 1, "a number in (0,1)", d.Threshold)
	v.check("data.planted.visible", p.Visible >= 1, "a positive integer", p.Visible)
	v.check("data.planted.hidden", p.Hidden >= 1, "a positive integer", p.Hidden)
	v.check("data.planted.train", p.Train >= 1, "a positive integer", p.Train)
	v.check("data.planted.valid", p.Valid >= 1, "a positive integer", p.Valid)
	v.check("data.planted.test", p.Test >= 1, "a positive integer", p.Test)
	v.check("data.planted.weight_scale", p.WeightScale > 0 && finite(p.WeightScale), "a positive number", p.WeightScale)
	if p.Visible >= 1 && p.Hidden >= 1 && min(p.Visible, p.Hidden) > maxPlantedEnum {
		v.crossf("data.planted", "data.planted.hidden", "min(visible, hidden) must be ≤ %d (exact sampling enumerates 2^min(visible, hidden) states), got %d visible and %d hidden",
			maxPlantedEnum, p.Visible, p.Hidden)
	}

	// The validation split is carved from the (limited) training set: it
	// must leave at least one training example, when the size is known.
	if trainOK && d.Validation > 0 {
		n := -1
		if train.Scheme == "planted" {
			n = plantedSize(p, train.Part)
		} else if sizes, ok := knownSize[train.Scheme]; ok {
			n = sizes[train.Part]
		}
		if d.LimitTrain > 0 && (n < 0 || d.LimitTrain < n) {
			n = d.LimitTrain
		}
		if n >= 0 && d.Validation >= n {
			v.crossf("data", "data.validation", "validation %d leaves no training examples (the training set has %d)", d.Validation, n)
		}
	}
}

func (v *validator) model(m *Model) {
	types := v.opt.modelTypes()
	if !slices.Contains(types, m.Type) {
		v.errorAt("model.type", "unknown model type %q%s", m.Type, knownHint(m.Type, types))
	}
	v.check("model.hidden", m.Hidden >= 1, "a positive integer", m.Hidden)
	switch m.Type {
	case "dbn", "dbm":
		if len(m.Layers) < 2 {
			v.errorAt("model.layers", "a %s needs at least two hidden layer sizes (e.g. [500, 1000]), got %v", m.Type, m.Layers)
		}
		for i, n := range m.Layers {
			v.check(fmt.Sprintf("model.layers[%d]", i), n >= 1, "a positive integer", n)
		}
	default:
		if len(m.Layers) > 0 {
			v.errorAt("model.layers", "layers is for model types dbn and dbm; an %s uses hidden", m.Type)
		}
	}
	v.check("model.init_weight_std", m.InitWeightStd >= 0 && finite(m.InitWeightStd), "a non-negative number", m.InitWeightStd)
	v.enum("model.init_visible_bias", m.InitVisibleBias, visibleBiasInit)
}

func (v *validator) train(t *Train) {
	v.enum("train.method", t.Method, trainMethods)
	v.enum("train.layer_data", t.LayerData, []string{"sampled", "resampled", "mean-field"})
	v.check("train.k", t.K >= 1, "a positive integer", t.K)
	if t.KEnd != 0 && t.KEnd < t.K {
		v.crossf("train", "train.k_end", "k_end must be 0 (constant k) or ≥ k (%d), got %d", t.K, t.KEnd)
	}
	switch t.Method {
	case "pcd":
		if t.Chains < 1 {
			v.crossf("train", "train.chains", "method \"pcd\" needs chains ≥ 1, got %d", t.Chains)
		}
	case "cd":
		if t.Chains != 0 {
			v.crossf("train", "train.chains", "method \"cd\" needs chains = 0 (CD chains start at the minibatch; persistent chains are for pcd), got %d", t.Chains)
		}
	}
	v.check("train.epochs", t.Epochs >= 1, "a positive integer", t.Epochs)
	v.check("train.batch_size", t.BatchSize >= 1, "a positive integer", t.BatchSize)
	v.check("train.learning_rate", t.LearningRate > 0 && finite(t.LearningRate), "a positive number", t.LearningRate)
	if v.enum("train.lr_schedule", t.LRSchedule, lrSchedules) {
		if t.LRSchedule == "linear" {
			if !(t.LREnd >= 0 && t.LREnd < t.LearningRate) {
				v.crossf("train", "train.lr_end", "lr_schedule \"linear\" needs 0 ≤ lr_end < learning_rate (%v), got lr_end %v", t.LearningRate, t.LREnd)
			}
		} else if t.LREnd != 0 {
			v.crossf("train.lr_end", "train.lr_end", "only used by lr_schedule \"linear\" (lr_schedule is %q); remove it or set lr_schedule: linear", t.LRSchedule)
		}
		if t.LRSchedule == "exponential" {
			if !(t.LRDecay > 0 && t.LRDecay <= 1) {
				v.crossf("train", "train.lr_decay", "lr_schedule \"exponential\" needs 0 < lr_decay ≤ 1, got %v", t.LRDecay)
			}
		} else if t.LRDecay != 1 {
			v.crossf("train.lr_decay", "train.lr_decay", "only used by lr_schedule \"exponential\" (lr_schedule is %q); remove it or set lr_schedule: exponential", t.LRSchedule)
		}
	}
	v.check("train.momentum", t.Momentum >= 0 && t.Momentum < 1, "a number in [0,1)", t.Momentum)
	v.check("train.final_momentum", t.FinalMomentum >= 0 && t.FinalMomentum < 1, "a number in [0,1)", t.FinalMomentum)
	v.check("train.momentum_switch_epoch", t.MomentumSwitchEpoch >= 1, "a positive integer (1-based epoch)", t.MomentumSwitchEpoch)
	v.check("train.weight_decay", t.WeightDecay >= 0 && finite(t.WeightDecay), "a non-negative number", t.WeightDecay)
	v.check("train.checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
	v.check("train.mean_field_iters", t.MeanFieldIters >= 1, "a positive integer", t.MeanFieldIters)
	v.check("train.pretrain.epochs", t.Pretrain.Epochs >= 0, "a non-negative integer (0 = no pretraining)", t.Pretrain.Epochs)
	v.enum("train.pretrain.method", t.Pretrain.Method, trainMethods)
	v.check("train.pretrain.k", t.Pretrain.K >= 1, "a positive integer", t.Pretrain.K)
	v.check("train.pretrain.learning_rate", t.Pretrain.LearningRate > 0 && finite(t.Pretrain.LearningRate), "a positive number", t.Pretrain.LearningRate)
}

func (v *validator) evaluate(e *Experiment, train DataSpec, trainOK bool) {
	ev := &e.Evaluate
	seen := map[string]int{}
	for i, s := range ev.Splits {
		rel := fmt.Sprintf("evaluate.splits[%d]", i)
		if !v.enum(rel, s, splitNames) {
			continue
		}
		if j, dup := seen[s]; dup {
			v.errorAt(rel, "duplicate split %q (also evaluate.splits[%d])", s, j)
			continue
		}
		seen[s] = i
		if s == "valid" && e.Data.Validation == 0 && !(trainOK && train.Scheme == "planted") {
			v.crossf(rel, rel, "split \"valid\" needs data.validation > 0 (or planted training data, whose valid split is planted:valid)")
		}
	}
	v.check("evaluate.max_examples", ev.MaxExamples >= 0, "a non-negative integer (0 = all)", ev.MaxExamples)
	v.check("evaluate.every", ev.Every >= 0, "a non-negative integer (0 = never)", ev.Every)
	visible := -1 // known number of visible units, for the exact estimator
	if trainOK {
		switch train.Scheme {
		case "planted":
			visible = e.Data.Planted.Visible
		case "mnist", "fashion-mnist":
			visible = 784
		}
	}
	for _, list := range []struct {
		rel  string
		ests []Estimator
	}{{"evaluate.every_epoch", ev.EveryEpoch}, {"evaluate.final", ev.Final}} {
		for i, est := range list.ests {
			rel := fmt.Sprintf("%s[%d]", list.rel, i)
			v.estimator(rel, est, e.Model, visible)
			for j := range i {
				if est.Name != "" && list.ests[j] == est {
					v.errorAt(rel, "duplicate of %s[%d] (same estimator, same settings)", list.rel, j)
					break
				}
			}
		}
	}
}

// annealing checks the settings shared by the annealing estimators: betas,
// schedule (the "2008" shape needs three β) and init.
func (v *validator) annealing(rel string, est Estimator) {
	v.check(rel+".betas", est.Betas >= 1, "a positive integer", est.Betas)
	if v.enum(rel+".schedule", est.Schedule, aisSchedules) && est.Schedule == "2008" && est.Betas >= 1 && est.Betas < 3 {
		v.crossf(rel, rel+".betas", "schedule \"2008\" (three segments) needs betas ≥ 3, got %d", est.Betas)
	}
	v.enum(rel+".init", est.Init, aisInits)
}

func (v *validator) estimator(rel string, est Estimator, m Model, visible int) {
	switch est.Name {
	case "ais":
		v.check(rel+".runs", est.Runs >= 2, "an integer ≥ 2", est.Runs)
		v.annealing(rel, est)
		v.check(rel+".min_ess_fraction", est.MinESSFraction >= 0 && est.MinESSFraction <= 1, "a number in [0,1]", est.MinESSFraction)
		v.check(rel+".samples", est.Samples >= 1, "a positive integer", est.Samples)
	case "raise":
		v.check(rel+".chains", est.Chains >= 1, "a positive integer", est.Chains)
		v.annealing(rel, est)
		v.check(rel+".examples", est.Examples >= 0, "a non-negative integer (0 = all)", est.Examples)
		v.enum(rel+".control_variate", est.ControlVariate, controlVariates)
		v.check(rel+".gap_tolerance", est.GapTolerance > 0, "a positive number (nats)", est.GapTolerance)
		v.check(rel+".min_ess_fraction", est.MinESSFraction >= 0 && est.MinESSFraction <= 1, "a number in [0,1]", est.MinESSFraction)
		if est.ControlVariate == "fit" && est.Examples > 0 && est.Examples < 3 {
			v.crossf(rel, rel+".examples", "control_variate \"fit\" needs examples ≥ 3 to fit α, got %d", est.Examples)
		}
	case "mf-bound":
		v.check(rel+".runs", est.Runs >= 2, "an integer ≥ 2", est.Runs)
		v.annealing(rel, est)
		v.check(rel+".min_ess_fraction", est.MinESSFraction >= 0 && est.MinESSFraction <= 1, "a number in [0,1]", est.MinESSFraction)
		if m.Type != "dbm" {
			v.errorAt(rel+".name", "mf-bound is the mean-field bound of a dbm; the model type is %s", m.Type)
		}
	case "dbn-bound":
		v.check(rel+".samples", est.Samples >= 1, "a positive integer", est.Samples)
		v.check(rel+".runs", est.Runs >= 2, "an integer ≥ 2", est.Runs)
		v.check(rel+".betas", est.Betas >= 1, "a positive integer", est.Betas)
		v.enum(rel+".schedule", est.Schedule, aisSchedules)
		v.enum(rel+".init", est.Init, aisInits)
	case "csl":
		v.check(rel+".chains", est.Chains >= 1, "a positive integer", est.Chains)
		v.check(rel+".steps", est.Steps >= 0, "a non-negative integer (0 = matched to RAISE/AIS)", est.Steps)
		v.check(rel+".burn_in", est.BurnIn >= 0, "a non-negative integer", est.BurnIn)
		v.enum(rel+".init", est.Init, aisInits)
		v.check(rel+".examples", est.Examples >= 0, "a non-negative integer (0 = all)", est.Examples)
	case "exact":
		if est.MaxUnits < 1 || est.MaxUnits > maxExactUnits {
			v.check(rel+".max_units", false, fmt.Sprintf("an integer in [1,%d]", maxExactUnits), est.MaxUnits)
			return
		}
		if m.Type == "rbm" && visible > 0 && m.Hidden > 0 && min(visible, m.Hidden) > est.MaxUnits {
			v.crossf(rel, rel, "exact enumeration needs min(visible, hidden) ≤ max_units (%d), but the model has %d visible and %d hidden units; remove exact or raise max_units (≤ %d)",
				est.MaxUnits, visible, m.Hidden, maxExactUnits)
		}
	}
}
