package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all" // every model family
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

const evalUsage = `Usage: logz eval --model FILE.npz --data SPEC --estimator LIST [flags]

Evaluates a saved model (a logz model.npz, or an .npz written by NumPy with
W, vbias, hbias) on a data set. LIST is comma-separated, e.g.
exact,ais,raise,csl: AIS and RAISE run on the same annealing path and are
shown side by side with their gap.
SPEC is mnist:train|test, fashion-mnist:train|test,
digits:train|train-shifted|test, planted:train|valid|test, idx:PATH or
npy:PATH (an N×D array of 0/1). Prints a table, or with --json
the results.json object. With --shard i/n --parts DIR it computes only shard
i's share of the estimators' work (AIS runs, RAISE pairs, CSL chain groups,
IS examples) into DIR/parts; the same command with --parts DIR and without
--shard then prints the results of the whole, the same numbers as without
sharding (DIR is a folder of its own: one holding a logz run is refused).
With --ratio-to B.npz (and --data optional), the
ais-ratio estimator prints log Z_B − log Z_A of two RBMs with its bands. A flag that has no effect on this evaluation (e.g.
--chains with exact alone, --threshold without --binarize threshold) is
reported on stderr and ignored.

A model.npz written by logz run records its run: its config and the
fingerprints (spec, binarisation and seed, examples kept, SHA-256) of the
data it trained and evaluated on. Such a model is evaluated as its run did
unless the flags say otherwise: --data may be left out (the run's splits),
--data with the run's train or test spec gives the run's bits, the seed is
the run's, and without estimator flags the estimators are the run's final
entries (all, or those --estimator names) with their settings and seeds —
the run's numbers, bit for bit. --binarize, --binarize-seed or --threshold
ask for other bits, and rows on bits other than the run's say so. Every
table ends with the data it measured.

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
	seed := fs.Uint64("seed", 1, "seed of every random draw (for a model written by logz run: that run's evaluation seed)")
	binarizeSeed := fs.Uint64("binarize-seed", 0, "seed of a stochastic --binarize (default: for a model written by logz run, the run's binarisation; else --seed)")
	binarize := fs.String("binarize", data.Stochastic, "grey images (mnist:, fashion-mnist:, idx:): "+data.Methods)
	threshold := fs.Float64("threshold", data.DefaultThreshold, "cut t in (0,1) for --binarize threshold: pixel/255 > t is 1")
	dataDir := fs.String("data-dir", "", "directory of the MNIST/Fashion-MNIST IDX files")
	split := fs.String("split", "", "name of the evaluated split in the table and results (default: the part of mnist:, fashion-mnist: and planted: specs, test for idx: and npy:)")
	asJSON := fs.Bool("json", false, "print the results.json object instead of a table")
	byLabel := fs.Bool("by-label", false, "break each mean log-likelihood down by the examples' labels, as evaluate.by_label (exact, ais, chi2 and raise rows of an rbm); needs labelled data (default: for a model written by logz run on its own data, the run's evaluate.by_label)")
	shardFlag := fs.String("shard", "", "compute shard i of n of the evaluation (i/n, or env/n for i from $SLURM_ARRAY_TASK_ID and the like) into --parts DIR")
	partsDir := fs.String("parts", "", "with --shard: the folder the shards' parts go to; without: merge the parts there and print the results")
	fs.Usage = func() { fmt.Fprint(fs.Output(), evalUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("eval: unexpected argument %q (flags only; see 'logz eval --help')", pos[0])}
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	// A flag that belongs to one estimator (e.g. --ratio-to B.npz, of
	// ais-ratio) selects it unless --estimator says otherwise; some need no
	// data (the ratio log Z_B − log Z_A).
	selecting := family.Selecting(func(name string) bool { return given[name] })
	if len(selecting) > 1 {
		return usageError{fmt.Sprintf("eval: --%s and --%s belong to different estimators (%s, %s); give one", selecting[0].Name, selecting[1].Name, selecting[0].Estimator, selecting[1].Estimator)}
	}
	var sel *family.Flag
	if len(selecting) == 1 {
		sel = &selecting[0]
		if !given["estimator"] {
			*ests = sel.Estimator
		}
		if *modelPath == "" {
			return usageError{fmt.Sprintf("eval: --%s needs --model, the model it is a setting of (see 'logz eval --help')", sel.Name)}
		}
	}
	dataOptional := sel != nil && sel.DataOptional
	if *modelPath == "" {
		return usageError{"eval: --model and --data are required (see 'logz eval --help'); --data may be left out for a model written by logz run"}
	}
	dataFlags := given["binarize"] || given["binarize-seed"] || given["threshold"]
	if *spec == "" && !dataOptional && (dataFlags || !recordsRun(*modelPath)) {
		return usageError{"eval: --data is required (see 'logz eval --help'); only a model written by logz run may leave it out, to be evaluated on the run's own splits"}
	}
	names, err := estimatorNames(*ests, allNames)
	if err != nil {
		return err
	}
	if sel != nil && !slices.Contains(names, sel.Estimator) {
		return usageError{fmt.Sprintf("eval: --%s is a setting of %s, which --estimator %s does not list", sel.Name, sel.Estimator, *ests)}
	}
	var shard *experiment.Shard
	if *shardFlag != "" {
		sh, err := experiment.ParseShard(*shardFlag, os.Getenv)
		if err != nil {
			return usageError{"eval: --shard: " + err.Error()}
		}
		if *partsDir == "" {
			return usageError{"eval: --shard needs --parts DIR, the folder the shards' parts go to"}
		}
		shard = &sh
	}
	if *partsDir != "" && *spec == "" {
		return usageError{"eval: --shard and --parts need --data"}
	}
	if *partsDir != "" {
		if err := experiment.CheckPartsFolder(*partsDir); err != nil {
			return usageError{"eval: " + err.Error()}
		}
	}
	if *spec == "" && dataOptional {
		return evalWithoutData(*sel, *modelPath, names, flagValues(estFlags, flagVals, given), given, *seed, *asJSON, stdout, stderr)
	}
	var dataSpec config.DataSpec
	if *spec != "" {
		if dataSpec, err = config.ParseDataSpec(*spec); err != nil {
			return usageError{"eval: --data: " + err.Error()}
		}
	}
	var baseDataSpec config.DataSpec
	if *baseSpec != "" {
		if baseDataSpec, err = config.ParseDataSpec(*baseSpec); err != nil {
			return usageError{"eval: --base-data: " + err.Error()}
		}
	}
	if *limit < 0 {
		return usageError{fmt.Sprintf("eval: --limit wants an integer ≥ 0 (0 = all), got %d", *limit)}
	}
	if err := checkBinarizeFlags("eval", *binarize, *threshold); err != nil {
		return err
	}
	splitName := *split
	if splitName != "" && !splitNameRE.MatchString(splitName) {
		return usageError{fmt.Sprintf("eval: --split wants a plain word (letters, digits, '_' or '-', such as test), got %q", splitName)}
	}
	if splitName != "" && *spec == "" {
		return usageError{"eval: --split names the split of --data; without --data the run's own splits keep their names"}
	}
	values := flagValues(estFlags, flagVals, given)
	ckpt, err := models.Load(*modelPath, family.Codecs())
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	fam, err := family.Lookup(ckpt.Model.TypeName())
	if err != nil {
		return err
	}
	if fam.OwnEvalDefaults {
		for _, f := range estFlags {
			if !given[f.Name] {
				delete(values, f.Name)
			}
		}
	}
	list, err := evalEstimators(fam, names, values, given, stderr)
	if err != nil {
		return err
	}
	// A model written by logz run is evaluated as its run did unless the
	// flags say otherwise: the run's data and evaluation seed, and, with no
	// estimator flag, the settings (and seeds) of the run's final entries.
	rc := readRunContext(ckpt, *modelPath, stderr)
	var positions []int
	fromRun := false
	if rc != nil && !slices.ContainsFunc(estFlags, func(f family.Flag) bool { return given[f.Name] }) {
		var runNames []string
		if given["estimator"] {
			runNames = names
		}
		runList, pos, missing := rc.finalEntries(runNames)
		if len(runList) > 0 {
			fromRun = true
			list, positions = runList, pos
			for _, n := range missing {
				extra, err := evalEstimators(fam, []string{n}, values, given, io.Discard)
				if err != nil {
					return err
				}
				list = append(list, extra...)
				positions = append(positions, len(rc.exp.Evaluate.Final)+len(positions))
			}
		}
	}
	if err := fam.CheckFeasible(ckpt.Model, list); err != nil {
		return err
	}
	// The data flags this evaluation does not use.
	specs := []config.DataSpec{dataSpec}
	if *spec == "" && rc == nil {
		return usageError{"eval: --data is required: the run recorded in " + *modelPath + " cannot be read (above)"}
	}
	if *spec == "" {
		specs = nil
		for _, sp := range []string{rc.exp.Data.Train, rc.exp.Data.Test} {
			if d, err := config.ParseDataSpec(sp); err == nil {
				specs = append(specs, d)
			}
		}
	}
	baseUsed := usesBaseRate(list, values)
	if *baseSpec != "" {
		if baseUsed {
			specs = append(specs, baseDataSpec)
		} else {
			why := "not used with --init " + values["init"]
			if !anyDeclares(list, "init") {
				why = "not used by " + strings.Join(names, ", ") + " (only by a base-rate start, --init base-rate)"
			}
			ignored(stderr, "base-data", why)
		}
	}
	ignoredDataFlags(stderr, given, *binarize, specs)
	bseed := *seed
	if given["binarize-seed"] {
		bseed = *binarizeSeed
	}
	opt := data.Options{DataDir: *dataDir, FashionDir: *dataDir, DigitsDir: *dataDir, Binarize: data.Binarization{Method: *binarize, Threshold: *threshold, Seed: bseed}}
	if rc != nil && !given["data-dir"] && rc.exp.Data.DataDir != "" {
		// The run's data folder stays the default when the flags ask for
		// other bits of its data.
		opt.DataDir, opt.FashionDir, opt.DigitsDir = rc.exp.Data.DataDir, rc.exp.Data.DataDir, rc.exp.Data.DataDir
	}
	useRun := rc != nil && !dataFlags
	var splits []evalenv.Split
	var base *data.Set // the base rate's data (and the environment's training set)
	if useRun {
		train0, _, test, runSplits, err := rc.load(*dataDir)
		if err != nil {
			return err
		}
		splits, base = runSplits, train0
		if *spec != "" {
			s, err := rc.pick(*spec, *dataDir, train0, test, runSplits)
			if err != nil {
				return err
			}
			splits = []evalenv.Split{s}
		}
		if *baseSpec != "" && baseUsed {
			opt = experiment.DataOptions(rc.exp)
			if *dataDir != "" {
				opt.DataDir, opt.FashionDir, opt.DigitsDir = *dataDir, *dataDir, *dataDir
			}
		}
	} else {
		set, err := data.Load(*spec, opt)
		if err != nil {
			return err
		}
		splits, base = []evalenv.Split{{Name: defaultSplit(dataSpec), Data: set}}, set
	}
	// wholes[k]: the bits of split k before --limit took its first
	// examples, which the run's record of the split is compared with.
	wholes := make([]data.Provenance, len(splits))
	for k := range splits {
		s := splits[k].Data.(*data.Set)
		if s.D != ckpt.Model.NumVisible() {
			return fmt.Errorf("%s has %d units per example but the model in %s has %d visible units", s.Source.Spec, s.D, *modelPath, ckpt.Model.NumVisible())
		}
		wholes[k] = s.Fingerprint()
		if *limit > 0 && *limit < s.N {
			s = s.Limit(*limit)
		}
		if splitName != "" {
			splits[k].Name = splitName
		}
		fp := s.Fingerprint()
		splits[k].Data, splits[k].Source = s, &fp
	}
	if *baseSpec != "" && baseUsed {
		if base, err = data.Load(*baseSpec, opt); err != nil {
			return err
		}
		if base.D != ckpt.Model.NumVisible() {
			return fmt.Errorf("--base-data %s has %d units per example, the model %d", *baseSpec, base.D, ckpt.Model.NumVisible())
		}
	}
	read := append([]evalenv.Split(nil), splits...)
	if *baseSpec != "" && baseUsed {
		read = append(read, evalenv.Split{Source: &base.Source})
	}
	binaryNPYFlags(stderr, given, read)
	name := strings.TrimSuffix(filepath.Base(*modelPath), filepath.Ext(*modelPath))
	evalSeed := *seed
	var tracked *evalenv.Tracked
	if rc != nil {
		name = rc.exp.Name
		if !given["seed"] {
			evalSeed = rc.evalSeed()
		}
		tracked = evalenv.NewTracked()
		tracked.Restore(ckpt)
		if useRun && !*asJSON {
			fmt.Fprintln(stderr, rc.describe(*modelPath, !given["seed"], list, fromRun))
		}
	}
	labels := *byLabel
	if rc != nil && useRun && !given["by-label"] {
		labels = rc.exp.Evaluate.ByLabel
	}
	if labels {
		for _, s := range splits {
			if s.Data.(*data.Set).Labels == nil {
				return fmt.Errorf("--by-label: the %s split (%s) has no labels; it needs labelled images (mnist:, fashion-mnist:, digits:, or idx: with its labels-idx1 file beside it)", s.Name, s.Source.Spec)
			}
		}
	}
	ev := evalenv.Env{
		Experiment: name, Stage: report.StageFinal, Epoch: ckpt.Meta.Epoch,
		Splits: splits, ByLabel: labels,
		BaseRate: data.LogOdds(base, 1), Train: base, Seed: evalSeed, Positions: positions, Tracked: tracked,
		Notice: func(msg string) { fmt.Fprintln(stderr, msg) },
	}
	if !*asJSON {
		ev.Progress = experiment.StderrProgress(stderr)
	}
	var rows []report.Row
	if *partsDir == "" {
		rows, err = ev.Run(fam, ckpt.Model, list)
	} else {
		sets := []*data.Set{}
		for _, s := range splits {
			sets = append(sets, s.Data.(*data.Set))
		}
		e := &experiment.Evaluation{Family: fam, Model: ckpt.Model, ModelFile: *modelPath, Estimators: list, Env: ev,
			Data: append(sets, base), Logz: versionString()}
		if shard != nil {
			if err := experiment.EvalShard(*partsDir, *shard, e, stderr); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "logz eval: shard %s is in %s; once every shard has run, the same command with --parts %s and without --shard prints the results\n",
				shard, filepath.Join(*partsDir, experiment.PartsDir), *partsDir)
			return nil
		}
		rows, err = experiment.EvalMerged(*partsDir, e)
	}
	if err != nil {
		return err
	}
	if labels {
		experiment.AddByLabel(ckpt.Model, splits, rows)
	}
	if rc != nil {
		rc.checkBits(rows, splits, wholes, useRun)
	}
	if *asJSON {
		return report.EncodeResults(stdout, rows)
	}
	if err := report.RenderTable(stdout, rows, report.TableOptions{}); err != nil {
		return err
	}
	if err := report.RenderSandwich(stdout, rows, report.TableOptions{}); err != nil {
		return err
	}
	printRowNotes(stdout, rows)
	return nil
}

// recordsRun reports whether the model file at path was written by logz
// run and records that run, or lies in the run folder that made it (a file
// that cannot be read answers false; the load that follows names its
// problem).
func recordsRun(path string) bool {
	c, err := models.Load(path, family.Codecs())
	return err == nil && readRunContext(c, path, io.Discard) != nil
}

// flagValues returns the values of the estimator flags given or with a
// default, by flag name ("0" of a ZeroUnset flag and "" mean unset).
func flagValues(estFlags []family.Flag, vals []*string, given map[string]bool) map[string]string {
	values := map[string]string{}
	for i, f := range estFlags {
		v := *vals[i]
		if (given[f.Name] || f.Default != "") && !(f.ZeroUnset && v == "0") && v != "" {
			values[f.Name] = v
		}
	}
	return values
}

// evalWithoutData is `logz eval --model A.npz` without --data, allowed by
// a flag whose estimator needs no data (e.g. --ratio-to B.npz): that
// estimator, and exact, run with no split (the ratio: log Z_B − log Z_A
// with its bands).
func evalWithoutData(sel family.Flag, modelPath string, names []string, values map[string]string, given map[string]bool, seed uint64, asJSON bool, stdout, stderr io.Writer) error {
	for _, n := range names {
		if n != sel.Estimator && n != "exact" {
			return usageError{fmt.Sprintf("eval: --estimator %s needs --data (without it only %s and exact run)", n, sel.Estimator)}
		}
	}
	ckpt, err := models.Load(modelPath, family.Codecs())
	if err != nil {
		return fmt.Errorf("--model: %w", err)
	}
	fam, err := family.Lookup(ckpt.Model.TypeName())
	if err != nil {
		return err
	}
	if _, ok := fam.Estimator(sel.Estimator); !ok {
		return fmt.Errorf("--model: %s holds a %s; --%s is a setting of %s, which only %s models have", modelPath, fam.Name, sel.Name, sel.Estimator, strings.Join(family.WithEstimator(sel.Estimator), " and "))
	}
	list, err := evalEstimators(fam, names, values, given, stderr)
	if err != nil {
		return err
	}
	if err := fam.CheckFeasible(ckpt.Model, list); err != nil {
		var se *family.SettingError
		if errors.As(err, &se) {
			return fmt.Errorf("--%s: %w", sel.Name, err)
		}
		return err
	}
	name := strings.TrimSuffix(filepath.Base(modelPath), filepath.Ext(modelPath))
	ev := evalenv.Env{
		Experiment: name, Stage: report.StageFinal, Epoch: ckpt.Meta.Epoch, Seed: seed,
		Notice: func(msg string) { fmt.Fprintln(stderr, msg) },
	}
	if !asJSON {
		ev.Progress = experiment.StderrProgress(stderr)
	}
	rows, err := ev.Run(fam, ckpt.Model, list)
	if err != nil {
		return err
	}
	if asJSON {
		return report.EncodeResults(stdout, rows)
	}
	if err := report.RenderTable(stdout, rows, report.TableOptions{}); err != nil {
		return err
	}
	printRowNotes(stdout, rows)
	return nil
}

// printRowNotes prints each row's own notes (how it was set up: the AIS
// chains' precision, the β spacing a pilot chose, a subsample's extension)
// under the table, once per estimator and note.
func printRowNotes(w io.Writer, rows []report.Row) {
	seen := map[string]bool{}
	for _, r := range rows {
		for _, n := range r.Notes {
			if k := r.Estimator + "\x00" + n; !seen[k] {
				seen[k] = true
				fmt.Fprintf(w, "  %s: %s\n", r.Estimator, n)
			}
		}
	}
}

// checkBinarizeFlags checks --binarize and --threshold of command cmd.
func checkBinarizeFlags(cmd, binarize string, threshold float64) error {
	switch binarize {
	case data.Stochastic, data.Threshold, data.None:
	default:
		return usageError{fmt.Sprintf("%s: --binarize wants %s, got %q%s", cmd, data.Methods, binarize,
			config.DidYouMean(binarize, []string{data.Stochastic, data.Threshold, data.None}))}
	}
	// Zero is data's "default" threshold, so the flag takes (0,1) like the
	// config key data.threshold.
	if !(threshold > 0 && threshold < 1) {
		return usageError{fmt.Sprintf("%s: --threshold wants a number in (0,1) (pixel/255 > t is 1; for any ink use e.g. 0.001), got %v", cmd, threshold)}
	}
	return nil
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
	if err := config.CheckList(list); err != nil {
		return nil, usageError{"eval: " + err.Error()}
	}
	for _, f := range family.Flags() {
		if given[f.Name] && !used[f.Name] {
			fmt.Fprintf(stderr, "logz eval: --%s is not a setting of %s for a %s; ignored\n", f.Name, strings.Join(names, ", "), fam.Name)
		}
	}
	return list, nil
}

// ignored reports on stderr a flag given explicitly that has no effect.
func ignored(stderr io.Writer, flag, why string) {
	fmt.Fprintf(stderr, "logz eval: --%s is %s; ignored\n", flag, why)
}

// ignoredDataFlags reports the data flags given explicitly that do not
// apply to the data specs read.
func ignoredDataFlags(stderr io.Writer, given map[string]bool, binarize string, specs []config.DataSpec) {
	// npy: files may hold 0/1 data or grey levels: known once read
	// (binaryNPYFlags).
	grey := slices.ContainsFunc(specs, func(d config.DataSpec) bool { return d.Scheme != "planted" })
	switch {
	case !grey:
		for _, f := range []string{"binarize", "threshold"} {
			if given[f] {
				ignored(stderr, f, "not used for 0/1 data ("+specs[0].Scheme+":)")
			}
		}
	case given["threshold"] && binarize != data.Threshold:
		ignored(stderr, "threshold", "used only with --binarize threshold")
	}
	if given["data-dir"] && !slices.ContainsFunc(specs, func(d config.DataSpec) bool {
		_, published := data.LookupPublished(d.Scheme)
		return d.Scheme == "mnist" || d.Scheme == "fashion-mnist" || d.Scheme == "digits" || published
	}) {
		ignored(stderr, "data-dir", "used only for mnist:, fashion-mnist:, digits: and the published sets (omniglot:, …)")
	}
}

// binaryNPYFlags reports the binarisation flags given explicitly when the
// data read are npy: files of 0/1 values, which are used as they are.
func binaryNPYFlags(stderr io.Writer, given map[string]bool, splits []evalenv.Split) {
	for _, s := range splits {
		if src := s.Source; src == nil || !strings.HasPrefix(src.Spec, "npy:") || src.Binarize != "" {
			return
		}
	}
	for _, f := range []string{"binarize", "threshold"} {
		if given[f] {
			ignored(stderr, f, "not used for 0/1 data (npy:)")
		}
	}
}

// estimatorNames splits the --estimator list, refusing an empty list, an
// unknown name and a name listed twice (every estimator gets the same flag
// values, so a repeat would only compute the same rows again).
func estimatorNames(list string, known []string) ([]string, error) {
	names := splitList(list)
	if len(names) == 0 {
		return nil, usageError{"eval: --estimator: no estimator given" + config.KnownHint("", known)}
	}
	seen := map[string]bool{}
	for _, name := range names {
		if owners, _ := family.KnownEstimator(name); len(owners) == 0 {
			return nil, usageError{fmt.Sprintf("eval: --estimator: unknown estimator %q%s", name, config.KnownHint(name, known))}
		}
		if seen[name] {
			return nil, usageError{fmt.Sprintf("eval: --estimator: %s is listed twice", name)}
		}
		seen[name] = true
	}
	return names, nil
}

// anyDeclares reports whether a chosen estimator has a setting for flag.
func anyDeclares(list []config.Estimator, flag string) bool {
	for _, e := range list {
		if slices.Contains(config.SettingsFlags(e.Settings), flag) {
			return true
		}
	}
	return false
}

// usesBaseRate reports whether a chosen estimator starts at the data base
// rate, the only use of --base-data.
func usesBaseRate(list []config.Estimator, values map[string]string) bool {
	return anyDeclares(list, "init") && values["init"] == "base-rate"
}

// splitNameRE is a plain word, as --split must be.
var splitNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// defaultSplit names the evaluated split after the data spec's part
// (mnist:test → test, planted:valid → valid); a file (idx:, npy:) has no
// part and is taken to be a test set.
func defaultSplit(d config.DataSpec) string {
	if d.Part != "" {
		return d.Part
	}
	return "test"
}
