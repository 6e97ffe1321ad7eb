package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/logz-ml/logz/family"
)

// The accepted values of the enumerated keys, in one place.
var (
	binarizeModes = []string{"stochastic", "threshold", "none"}
	splitNames    = []string{"train", "valid", "test"}
)

// knownSize holds the number of examples of the parts of the built-in data
// sets (used to check validation and limit settings early).
var knownSize = map[string]map[string]int{
	"mnist":         {"train": 60000, "test": 10000},
	"fashion-mnist": {"train": 60000, "test": 10000},
}

// maxPlantedEnum bounds min(visible, hidden) of the planted RBM, whose exact
// sampler enumerates the smaller layer (data.MaxPlantedEnum; a test keeps
// the two equal).
const maxPlantedEnum = 20

// maxPlantedGrid bounds the rows and cols of a planted ising grid
// (data.MaxPlantedGrid; a test keeps them equal).
const maxPlantedGrid = 300

// validator checks one decoded experiment, field by field and across fields.
type validator struct {
	*scope
}

// section reports the problems of a family's section (model, train or an
// estimator entry) at paths under prefix; it implements family.Problems.
type section struct {
	v      *validator
	prefix string
}

func (s section) rel(r string) string {
	if r == "" {
		return s.prefix
	}
	if strings.HasPrefix(r, "[") {
		return s.prefix + r
	}
	return join(s.prefix, r)
}

func (s section) Check(rel string, ok bool, want string, got any) {
	s.v.check(s.rel(rel), ok, want, got)
}
func (s section) Enum(rel, val string, allowed []string) bool {
	return s.v.enum(s.rel(rel), val, allowed)
}
func (s section) Errorf(rel, format string, args ...any) { s.v.errorAt(s.rel(rel), format, args...) }
func (s section) Crossf(rel, lineRel, format string, args ...any) {
	s.v.crossf(s.rel(rel), s.rel(lineRel), format, args...)
}

var _ family.Problems = section{}

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
	case reservedName(e.Name) != "":
		v.errorAt("name", "%s; choose another name", reservedName(e.Name))
	}
	for _, rv := range e.Reference.Values() {
		v.check("reference."+rv.Split, rv.Value < 0 && finite(rv.Value), "a log-likelihood in nats (< 0)", rv.Value)
	}
	if len(e.Reference.Values()) > 0 && e.Reference.Source == "" {
		v.errorAt("reference.source", "missing: say where the published numbers come from (e.g. \"Du et al. 2015, Table 2\")")
	}
	train, trainOK := v.dataSpec("data.train", e.Data.Train, "mnist:train")
	v.dataSpec("data.test", e.Data.Test, "mnist:test")
	v.data(e, train, trainOK)
	f, err := family.Lookup(e.Model.Type)
	if err != nil || e.Model.Settings == nil || e.Train == nil {
		return // an unknown model type, reported when decoded
	}
	e.Model.Settings.Check(section{v, "model"})
	e.Train.Check(section{v, "train"})
	v.evaluate(e, f, train, trainOK)
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
	v.enum("data.planted.model", p.Model, []string{"rbm", "sbn", "ising"})
	v.check("data.planted.rows", p.Rows >= 1 && p.Rows <= maxPlantedGrid, fmt.Sprintf("an integer in [1, %d]", maxPlantedGrid), p.Rows)
	v.check("data.planted.cols", p.Cols >= 1 && p.Cols <= maxPlantedGrid, fmt.Sprintf("an integer in [1, %d]", maxPlantedGrid), p.Cols)
	if p.Model == "ising" && p.Rows >= 1 && p.Cols >= 1 {
		// The grid gives the units; visible may be left at its default.
		if n := p.Rows * p.Cols; p.Visible != n && p.Visible != Default().Data.Planted.Visible {
			v.crossf("data.planted", "data.planted.visible", "the planted ising model has rows × cols = %d × %d = %d units, but visible is %d; drop visible", p.Rows, p.Cols, n, p.Visible)
		}
		d.Planted.Visible = p.Rows * p.Cols
		p.Visible = d.Planted.Visible
	}
	v.check("data.planted.visible", p.Visible >= 1, "a positive integer", p.Visible)
	v.check("data.planted.hidden", p.Hidden >= 1, "a positive integer", p.Hidden)
	v.check("data.planted.train", p.Train >= 1, "a positive integer", p.Train)
	v.check("data.planted.valid", p.Valid >= 1, "a positive integer", p.Valid)
	v.check("data.planted.test", p.Test >= 1, "a positive integer", p.Test)
	v.check("data.planted.weight_scale", p.WeightScale > 0 && finite(p.WeightScale), "a positive number", p.WeightScale)
	if p.Model == "rbm" && p.Visible >= 1 && p.Hidden >= 1 && min(p.Visible, p.Hidden) > maxPlantedEnum {
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

func (v *validator) evaluate(e *Experiment, f *family.Family, train DataSpec, trainOK bool) {
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
			v.estimator(rel, est, f, e.Model, visible)
			for j := range i {
				if est.Name != "" && list.ests[j].Name == est.Name && reflect.DeepEqual(list.ests[j].Settings, est.Settings) {
					v.errorAt(rel, "duplicate of %s[%d] (same estimator, same settings)", list.rel, j)
					break
				}
			}
		}
	}
}

// estimator checks one entry's settings and, when the family's estimator
// has such a check, whether they can work for the model.
func (v *validator) estimator(rel string, est Estimator, f *family.Family, m Model, visible int) {
	spec, ok := f.Estimator(est.Name)
	if !ok || est.Settings == nil {
		return // a bad entry, reported when decoded
	}
	p := section{v, rel}
	est.Settings.Check(p)
	if spec.CheckModel != nil {
		spec.CheckModel(p, est.Settings, m.Settings, visible)
	}
}
