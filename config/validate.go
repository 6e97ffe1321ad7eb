package config

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/logz-ml/logz/data"
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
	"digits":        {"train": 1500, "train-shifted": 7500, "test": 297},
}

func init() {
	for _, p := range data.PublishedSets() {
		knownSize[p.Scheme] = p.Sizes
	}
}

// validator checks one decoded experiment, field by field and across fields.
type validator struct {
	*scope
}

// section reports the problems of a family's section (model, train or an
// estimator entry) at paths under prefix; it implements family.Problems.
// A problem of values the section's document set is reported where they
// were written (under base: when base set them), unless inExperiment: the
// problems of an estimator's CheckModel depend on the experiment's model
// too, so they name the experiment (on the line of the estimator's key).
type section struct {
	v            *validator
	prefix       string
	inExperiment bool
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
	if !ok {
		s.Errorf(rel, "expected %s, got %s", want, show(got))
	}
}
func (s section) Enum(rel, val string, allowed []string) bool {
	if slices.Contains(allowed, val) {
		return true
	}
	s.Errorf(rel, "expected %s, got %q%s", orList(allowed), val, didYouMean(val, allowed))
	return false
}
func (s section) Errorf(rel, format string, args ...any) {
	if s.inExperiment {
		s.v.contextf(s.rel(rel), s.rel(rel), format, args...)
		return
	}
	s.v.errorAt(s.rel(rel), format, args...)
}
func (s section) Crossf(rel, lineRel, format string, args ...any) {
	if s.inExperiment {
		s.v.contextf(s.rel(rel), s.rel(lineRel), format, args...)
		return
	}
	s.v.crossf(s.rel(rel), s.rel(lineRel), format, args...)
}

// ChecksInputFiles says whether the settings that name files the run
// reads when it starts must name files that exist (not so in a recorded
// config, Options.Recorded).
func (s section) ChecksInputFiles() bool { return !s.v.p.opt.Recorded }

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

// crossf reports a cross-field problem at path rel, on the line of lineRel:
// under base: when base set both (the values it compares are all base's),
// else in the experiment.
func (v *validator) crossf(rel, lineRel, format string, args ...any) {
	path := v.full(rel)
	if !v.isBase && v.whereOf(rel).base && v.whereOf(lineRel).base {
		path = join("base", rel)
	}
	v.p.errorf(v.lineOf(lineRel), path, format, args...)
}

// contextf reports a problem that depends on settings of the experiment
// beyond rel (an estimator against the model, a split against the data) at
// the experiment's path rel, on the line of lineRel.
func (v *validator) contextf(rel, lineRel, format string, args ...any) {
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
	if g := e.Grid; !g.IsZero() {
		switch {
		case g.Of == "":
			v.errorAt("grid_point.of", "expected the name of the experiment whose grid made this one, got nothing")
		case len(g.Axes) == 0 || len(g.Axes) != len(g.At):
			v.errorAt("grid_point", "expected as many labels (at: %d) as axes (axes: %d), at least one", len(g.At), len(g.Axes))
		}
	}
	for _, rv := range e.Reference.Values() {
		v.check("reference."+rv.Split, rv.Value < 0 && finite(rv.Value), "a log-likelihood in nats (< 0)", rv.Value)
	}
	if len(e.Reference.Values()) > 0 && e.Reference.Source == "" {
		v.errorAt("reference.source", "missing: say where the published numbers come from (e.g. \"Du et al. 2015, Table 2\")")
	}
	train, trainOK := v.dataSpec("data.train", e.Data.Train, "mnist:train")
	test, testOK := v.dataSpec("data.test", e.Data.Test, "mnist:test")
	v.data(e, train, trainOK)
	v.byLabel(e, train, trainOK, test, testOK)
	f, err := family.Lookup(e.Model.Type)
	if err != nil || e.Model.Settings == nil || e.Train == nil {
		return // an unknown model type, reported when decoded
	}
	e.Model.Settings.Check(section{v: v, prefix: "model"})
	e.Train.Check(section{v: v, prefix: "train"})
	v.evaluate(e, f, train, trainOK)
	v.earlyStop(e, train, trainOK)
	v.selectPoint(e)
}

// selectPoint checks select: against the rest of the experiment: it
// chooses among a grid's points, on a split the experiment evaluates other
// than test (whose numbers the choice reports: choosing on them would
// report the best of several tries at the test set, biased upwards), by
// the mean log-likelihood of one of its evaluate.final estimators.
func (v *validator) selectPoint(e *Experiment) {
	s := e.Select
	if s.IsZero() {
		return
	}
	if e.Grid.IsZero() {
		v.errorAt("select", "select chooses among the points of a grid, and this experiment has none: add grid: (e.g. {train.learning_rate: [0.05, 0.01]}) or drop select")
		return
	}
	switch {
	case s.Split == "":
		v.errorAt("select.split", "missing: the split whose estimates choose the point, e.g. split: valid")
	case !slices.Contains(splitNames, s.Split):
		v.enum("select.split", s.Split, splitNames)
	case s.Split == "test":
		v.errorAt("select.split", "test is refused: the choice reports the chosen point's test numbers, and choosing on them would report the best of several tries at the test set (biased upwards); hold out a validation split (data.validation: N, or planted data's valid split), add valid to evaluate.splits and choose on valid")
	case !slices.Contains(e.Evaluate.Splits, s.Split):
		v.contextf("select.split", "select.split", "%s is not among evaluate.splits (now %v): add it, so that every point is estimated on it", s.Split, e.Evaluate.Splits)
	}
	names := make([]string, len(e.Evaluate.Final))
	for i, c := range e.Evaluate.Final {
		names[i] = c.Name
	}
	switch {
	case s.Estimator == "":
		v.errorAt("select.estimator", "missing: the evaluate.final estimator whose mean log-likelihood chooses the point (its entries: %s)", strings.Join(names, ", "))
	case !slices.Contains(names, s.Estimator):
		v.contextf("select.estimator", "select.estimator", "%q is not an entry of evaluate.final (its entries: %s)%s", s.Estimator, strings.Join(names, ", "), didYouMean(s.Estimator, names))
	}
}

// earlyStop checks train.early_stop against the rest of the experiment:
// it compares after-epoch estimates on the valid split, so it needs a
// validation split, after-epoch evaluations with the split listed, and a
// monitor among evaluate.every_epoch.
func (v *validator) earlyStop(e *Experiment, train DataSpec, trainOK bool) {
	s, ok := e.Train.(family.Stopper)
	if !ok {
		return
	}
	es := s.EarlyStopping() // its own settings are checked by the train section's Check
	if !es.On() {
		return
	}
	const rel = "train.early_stop.patience"
	ev := e.Evaluate
	switch {
	case e.Data.Validation == 0 && !(trainOK && train.Scheme == "planted"):
		v.contextf(rel, rel, "early stopping compares estimates on a validation split, and there is none: set data.validation to the number of training examples to hold out (or use planted training data, whose valid split is planted:valid)")
	case !slices.Contains(ev.Splits, "valid"):
		v.contextf(rel, rel, "early stopping compares estimates on the valid split: add valid to evaluate.splits (now %v)", ev.Splits)
	case ev.Every == 0 || len(ev.EveryEpoch) == 0:
		v.contextf(rel, rel, "early stopping needs after-epoch evaluations: evaluate.every > 0 (now %d) and at least one evaluate.every_epoch estimator (now %d)", ev.Every, len(ev.EveryEpoch))
	case es.Monitor != "" && !slices.ContainsFunc(ev.EveryEpoch, func(c Estimator) bool { return c.Name == es.Monitor }):
		names := make([]string, len(ev.EveryEpoch))
		for i, c := range ev.EveryEpoch {
			names[i] = c.Name
		}
		v.contextf("train.early_stop.monitor", "train.early_stop.monitor", "monitor %q is not an entry of evaluate.every_epoch (its entries: %s)", es.Monitor, strings.Join(names, ", "))
	}
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

// binarizeWarnings warns of binarisation settings that do nothing:
// binarize: threshold when every data spec of the experiment is already
// 0/1 (npy:, planted:, used as they are), and a binarize_seed (seedSet:
// one the file sets, not the derived one) when binarize is not
// stochastic, the only method that draws.
func (v *validator) binarizeWarnings(e *Experiment, seedSet bool) {
	d := e.Data
	binary := func(s string) bool {
		sp, err := ParseDataSpec(s)
		if p, ok := data.LookupPublished(sp.Scheme); ok && err == nil {
			return !p.Grey
		}
		return err == nil && (sp.Scheme == "npy" || sp.Scheme == "planted")
	}
	if d.Binarize == "threshold" && binary(d.Train) && binary(d.Test) {
		v.warnAt("data.binarize", "threshold has no effect: %s and %s are 0/1 data already, used as they are (binarize applies to grey images: mnist:, fashion-mnist:, digits:, omniglot:, idx:)", d.Train, d.Test)
	}
	if seedSet && d.Binarize != "stochastic" {
		v.warnAt("data.binarize_seed", "%d is not used: binarize_seed seeds the stochastic binarisation, and binarize is %s", d.BinarizeSeed, d.Binarize)
	}
}

func (v *validator) data(e *Experiment, train DataSpec, trainOK bool) {
	d := &e.Data
	p := d.Planted
	v.check("data.validation", d.Validation >= 0, "a non-negative integer", d.Validation)
	v.check("data.limit_train", d.LimitTrain >= 0, "a non-negative integer (0 = all)", d.LimitTrain)
	v.check("data.limit_test", d.LimitTest >= 0, "a non-negative integer (0 = all)", d.LimitTest)
	v.enum("data.binarize", d.Binarize, binarizeModes)
	v.check("data.threshold", d.Threshold > 0 && d.Threshold < 1, "a number in (0,1)", d.Threshold)
	// The planted data generator (data.Planted) is checked here, when the
	// config is read, with the limits it applies itself; its messages say
	// which setting is out of range.
	v.enum("data.planted.model", p.Model, data.PlantedModels())
	grid := fmt.Sprintf("an integer in [1, %d] (data.MaxPlantedGrid)", data.MaxPlantedGrid)
	v.check("data.planted.rows", p.Rows >= 1 && p.Rows <= data.MaxPlantedGrid, grid, p.Rows)
	v.check("data.planted.cols", p.Cols >= 1 && p.Cols <= data.MaxPlantedGrid, grid, p.Cols)
	if data.IsPlantedGrid(p.Model) && p.Rows >= 1 && p.Cols >= 1 {
		// The grid gives the units; visible may be left at its default.
		if n := p.Rows * p.Cols; p.Visible != n && p.Visible != Default().Data.Planted.Visible {
			v.crossf("data.planted", "data.planted.visible", "the planted ising model has rows × cols = %d × %d = %d units, but visible is %d; drop visible", p.Rows, p.Cols, n, p.Visible)
		}
		d.Planted.Visible = p.Rows * p.Cols
		p.Visible = d.Planted.Visible
	}
	units := fmt.Sprintf("an integer in [1, %d] (data.MaxPlantedUnits)", data.MaxPlantedUnits)
	visibleOK := p.Visible >= 1 && p.Visible <= data.MaxPlantedUnits
	v.check("data.planted.visible", visibleOK, units, p.Visible)
	v.check("data.planted.hidden", p.Hidden >= 1 && p.Hidden <= data.MaxPlantedUnits, units, p.Hidden)
	for _, n := range []struct {
		key  string
		size int
	}{{"train", p.Train}, {"valid", p.Valid}, {"test", p.Test}} {
		rel := "data.planted." + n.key
		if !visibleOK || n.size < 1 {
			v.check(rel, n.size >= 1, "a positive integer", n.size)
			continue
		}
		limit := data.MaxElements / p.Visible
		v.check(rel, n.size <= limit, fmt.Sprintf("at most %d examples of %d units (data.MaxElements = %d values per split)", limit, p.Visible, data.MaxElements), n.size)
	}
	scaleOK := p.WeightScale > 0 && p.WeightScale <= data.MaxPlantedWeightScale
	v.check("data.planted.weight_scale", scaleOK, fmt.Sprintf("a positive number at most %d (data.MaxPlantedWeightScale)", data.MaxPlantedWeightScale), p.WeightScale)
	if p.Model == "rbm" && visibleOK && p.Hidden >= 1 && min(p.Visible, p.Hidden) > data.MaxPlantedEnum {
		v.crossf("data.planted", "data.planted.hidden", "min(visible, hidden) must be ≤ %d (exact sampling enumerates 2^min(visible, hidden) states), got %d visible and %d hidden",
			data.MaxPlantedEnum, p.Visible, p.Hidden)
	}
	if x := float64(p.Visible) * p.WeightScale; p.Model == "rbm" && visibleOK && scaleOK && x > data.MaxPlantedScaledUnits {
		v.crossf("data.planted", plantedScaleKey(v), "settings of the planted data generator out of range: visible × weight_scale = %d × %v = %v must be at most %d (data.MaxPlantedScaledUnits: the planted rbm's hidden biases grow as about 2 × visible × weight_scale, and beyond that leave the range of model parameters); lower visible or weight_scale",
			p.Visible, p.WeightScale, x, data.MaxPlantedScaledUnits)
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

// plantedScaleKey is the key of visible and weight_scale that the file set
// last (the line the product's message points to): visible when the file
// set it and not weight_scale.
func plantedScaleKey(v *validator) string {
	if _, ok := v.lines["data.planted.weight_scale"]; !ok {
		if _, ok := v.lines["data.planted.visible"]; ok {
			return "data.planted.visible"
		}
	}
	return "data.planted.weight_scale"
}

// byLabel refuses evaluate.by_label when an evaluated split's data can
// have no labels (only mnist:, fashion-mnist:, digits: and idx: images
// can have a labels file beside them; whether it is there is checked when
// the data is read).
func (v *validator) byLabel(e *Experiment, train DataSpec, trainOK bool, test DataSpec, testOK bool) {
	if !e.Evaluate.ByLabel {
		return
	}
	labelled := func(sp DataSpec) bool {
		return slices.Contains([]string{"mnist", "fashion-mnist", "digits", "idx"}, sp.Scheme)
	}
	for _, s := range e.Evaluate.Splits {
		sp, ok, key := train, trainOK, "data.train"
		if s == "test" {
			sp, ok, key = test, testOK, "data.test"
		}
		if ok && !labelled(sp) {
			v.errorAt("evaluate.by_label", "the %s split comes from %s (%s), which has no labels; by_label needs labelled images (mnist:, fashion-mnist:, digits:, or idx: with its labels-idx1 file beside it)", s, key, sp)
			return
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
			v.contextf(rel, rel, "split \"valid\" needs data.validation > 0 (or planted training data, whose valid split is planted:valid)")
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
		case "digits":
			visible = 64
		default:
			if p, ok := data.LookupPublished(train.Scheme); ok {
				visible = p.D
			}
		}
	}
	for _, list := range []struct {
		rel  string
		ests []Estimator
	}{{"evaluate.every_epoch", ev.EveryEpoch}, {"evaluate.final", ev.Final}} {
		for i, est := range list.ests {
			rel := fmt.Sprintf("%s[%d]", list.rel, i)
			v.estimator(rel, est, f, e.Model, visible)
			if lc, ok := est.Settings.(family.ListChecker); ok {
				if _, known := f.Estimator(est.Name); known {
					lc.CheckList(section{v: v, prefix: rel}, list.ests)
				}
			}
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
	est.Settings.Check(section{v: v, prefix: rel})
	if spec.CheckModel != nil {
		spec.CheckModel(section{v: v, prefix: rel, inExperiment: true}, est.Settings, m.Settings, visible)
	}
}
