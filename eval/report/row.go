// Package report turns estimates into the files and tables logz writes:
// results.json (the machine-readable contract documented in docs/reference.md#resultsjson), per-experiment
// epochs.csv, the terminal table laid out like Table 1 of Salakhutdinov &
// Murray (2008), and report.md.
//
// Computing and rendering are separate: estimators fill Rows (use F for every
// optional number so that NaN and ±Inf become null), and the functions here
// only format them. A non-finite number never reaches a file: writers refuse
// such a row with an error naming it.
package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/provenance"
)

// Stages of a Row.
const (
	StageEpoch = "epoch" // evaluation after a training epoch
	StageFinal = "final" // the thorough evaluation at the end
)

// Row is one estimate: the unit of results.json. The JSON names are part of
// the results.json contract; optional numbers are pointers, encoded as null
// when nil.
type Row struct {
	Experiment string `json:"experiment"`
	Model      string `json:"model,omitempty"` // e.g. "rbm 784-25"
	Stage      string `json:"stage"`           // StageEpoch or StageFinal
	Epoch      int    `json:"epoch"`
	Estimator  string `json:"estimator"` // exact, ais, raise, csl, pll, recon, ...
	// Split is train, valid or test, or "" for split-free rows such as a log Z alone.
	Split string `json:"split"`

	LogZ *float64 `json:"log_z"` // log Ẑ; null where none
	// LogZLo and LogZHi are log(Ẑ−3σ̂) and log(Ẑ+3σ̂), σ̂ the standard error of
	// Ẑ; LogZLo is null when Ẑ−3σ̂ ≤ 0 (log undefined).
	LogZLo *float64 `json:"log_z_lo"`
	LogZHi *float64 `json:"log_z_hi"`
	// LogZLo1 and LogZHi1 are log(Ẑ−σ̂) and log(Ẑ+σ̂).
	LogZLo1 *float64 `json:"log_z_lo1,omitempty"`
	LogZHi1 *float64 `json:"log_z_hi1,omitempty"`

	// MeanLoglik is (1/N) Σ_n log p(v_n) over the split's N examples, in nats.
	MeanLoglik *float64 `json:"mean_loglik"`
	// LoglikLo and LoglikHi bracket the mean log-likelihood where an
	// estimator pair defines a bracket (e.g. RAISE below, AIS above).
	LoglikLo *float64 `json:"loglik_lo"`
	LoglikHi *float64 `json:"loglik_hi"`
	// LoglikSE is the standard error of MeanLoglik over examples,
	// sd(log p(v_n))/√N.
	LoglikSE *float64 `json:"loglik_se,omitempty"`

	// Value is the per-example value of a diagnostic that is not a
	// log-likelihood: pll (pseudo-log-likelihood), recon (squared error).
	Value *float64 `json:"value,omitempty"`
	// ExactLogZ is the true log Z when the same experiment also ran exact.
	ExactLogZ *float64 `json:"exact_log_z,omitempty"`

	// LogZBracketLo and LogZBracketHi bracket log Z where an estimator
	// pair of one evaluation defines a bracket: AIS's log Ẑ (below) and the
	// χ² bound's estimate (above), on the rows of both.
	LogZBracketLo *float64 `json:"log_z_bracket_lo,omitempty"`
	LogZBracketHi *float64 `json:"log_z_bracket_hi,omitempty"`

	Runs  int `json:"runs,omitempty"`  // AIS/RAISE chains; chi2: draws of q
	Betas int `json:"betas,omitempty"` // intermediate distributions
	// Init is the AIS start (base-rate, uniform); on a chi2 row the
	// proposal family q (mixture, aux); on the trainer's own row
	// (estimator "train") the name of its training signal when that is not
	// the reconstruction error (e.g. is-bound).
	Init string `json:"init,omitempty"`
	// Round is the round (1, 2, …) of a sandwich entry's AIS and RAISE
	// rows (run at growing K until their gap closes; the entry's last round
	// is its final pair), 0 on every other row.
	Round     int      `json:"round,omitempty"`
	ESS       *float64 `json:"ess,omitempty"` // effective sample size of the weights
	NExamples int      `json:"n_examples"`
	Seconds   float64  `json:"seconds"` // wall time of this estimate

	// SplitExamples is the number of examples of the split when the
	// estimator ran on a random subsample of NExamples of them; 0 when it
	// ran on the whole split (or the row does not say: rows of RAISE and
	// CSL, and rows written before this field, name the subsample in their
	// notes). See SubsampleTag.
	SplitExamples int `json:"split_examples,omitempty"`
	// ControlVariate names the cheap per-example estimate X (e.g. "exact
	// log p(x)") with which the subsample's mean was extended to the whole
	// split, Ŷ = ȳ − α(x̄ − X̄) (eval.ControlVariate): MeanLoglik and
	// LoglikSE are then that estimate of the split's mean and its standard
	// error. "" when MeanLoglik is the subsample's own mean.
	ControlVariate string `json:"control_variate,omitempty"`
	// SubsampleMean and SubsampleSE are the plain mean of the per-example
	// estimates over the NExamples examples evaluated and its standard error
	// (set with SplitExamples).
	SubsampleMean *float64 `json:"subsample_mean,omitempty"`
	SubsampleSE   *float64 `json:"subsample_se,omitempty"`
	// ExactOnSubsample is exact's mean log-likelihood on the same NExamples
	// examples, when exact ran earlier in the same evaluation (set with
	// SplitExamples).
	ExactOnSubsample *float64 `json:"exact_on_subsample,omitempty"`

	// Data names the bits of the split the row measured: spec,
	// binarisation and its seed, the examples kept, size and SHA-256 (nil
	// on split-free rows and rows written before it was recorded).
	Data *provenance.Data `json:"data,omitempty"`

	// ByLabel breaks MeanLoglik down by the examples' labels (evaluate:
	// by_label: true, on labelled data): one entry per label present, the
	// mean log p of that label's examples with its standard error, from the
	// same per-example values (and the same log Z) as the row. Nil on rows
	// that cannot say (no labels, or no per-example values).
	ByLabel []ClassStat `json:"by_label,omitempty"`

	// Warnings say why the number may not be trusted; encoded as [] when empty.
	Warnings []string `json:"warnings"`
	// Notes are facts about how the number was obtained that are not reasons
	// to distrust it (e.g. a subsample extended by a control variate, with
	// the variance reduction achieved).
	Notes []string `json:"notes,omitempty"`
}

// Clone returns a copy of r with its own Warnings and Notes, so that a
// warning appended to the copy (one split's row made from a shared base)
// cannot overwrite one appended to another copy through a shared array.
func (r Row) Clone() Row {
	r.Warnings = slices.Clone(r.Warnings)
	r.Notes = slices.Clone(r.Notes)
	r.ByLabel = slices.Clone(r.ByLabel)
	return r
}

// F returns a pointer to x, or nil when x is NaN or ±Inf, so that a missing
// or undefined number becomes null rather than invalid JSON.
func F(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Band returns log(Ẑ − kσ̂) and log(Ẑ + kσ̂) from logZ = log Ẑ and
// logSE = log σ̂ without leaving log space:
//
//	log(Ẑ ± kσ̂) = logaddexp / logsubexp(logZ, log k + logSE).
//
// lo is nil when Ẑ − kσ̂ ≤ 0 (as for CD1(25) in Table 1 of the 2008 paper);
// both are nil when the inputs are not finite (logSE = −Inf, a zero standard
// error, gives lo = hi = logZ).
func Band(logZ, logSE, k float64) (lo, hi *float64) {
	if math.IsNaN(logZ) || math.IsInf(logZ, 0) || math.IsNaN(logSE) || math.IsInf(logSE, 1) || !(k > 0) {
		return nil, nil
	}
	d := math.Log(k) + logSE
	return F(nmath.LogSubExp(logZ, d)), F(nmath.LogAddExp(logZ, d))
}

// SetLogZ fills LogZ, the ±σ̂ and ±3σ̂ bands and ESS from the summary of a
// set of importance weights (nmath.Summarise of the AIS log weights).
func (r *Row) SetLogZ(s nmath.LogStats) {
	r.LogZ = F(s.LogMean)
	r.LogZLo, r.LogZHi = Band(s.LogMean, s.LogStdErr, 3)
	r.LogZLo1, r.LogZHi1 = Band(s.LogMean, s.LogStdErr, 1)
	r.ESS = F(s.ESS)
}

// namedFloat is an optional number of a Row with its JSON name.
type namedFloat struct {
	name string
	p    *float64
}

// floatFields lists the numbers of r with their JSON names.
func (r *Row) floatFields() []namedFloat {
	return []namedFloat{
		{"log_z", r.LogZ}, {"log_z_lo", r.LogZLo}, {"log_z_hi", r.LogZHi},
		{"log_z_lo1", r.LogZLo1}, {"log_z_hi1", r.LogZHi1},
		{"mean_loglik", r.MeanLoglik}, {"loglik_lo", r.LoglikLo}, {"loglik_hi", r.LoglikHi},
		{"loglik_se", r.LoglikSE}, {"value", r.Value}, {"exact_log_z", r.ExactLogZ},
		{"log_z_bracket_lo", r.LogZBracketLo}, {"log_z_bracket_hi", r.LogZBracketHi},
		{"ess", r.ESS}, {"seconds", &r.Seconds},
		{"subsample_mean", r.SubsampleMean}, {"subsample_se", r.SubsampleSE}, {"exact_on_subsample", r.ExactOnSubsample},
	}
}

// Subsampled reports whether r's estimator ran on a random subsample of the
// split (SplitExamples > NExamples).
func (r *Row) Subsampled() bool { return r.SplitExamples > r.NExamples }

// SubsampleTag says, for a row on a subsample of its split, what its mean
// log-likelihood covers: "100 of 1000 + cv" when a control variate
// extended it to the whole split (comparable with whole-split rows), else
// "n = 100 of 1000" and, when exact ran on the same examples, "; exact
// -9.89" (a mean over other examples than a whole-split row's). "" for a
// row on the whole split.
func (r *Row) SubsampleTag() string {
	if !r.Subsampled() {
		return ""
	}
	if r.ControlVariate != "" {
		return fmt.Sprintf("%d of %d + cv", r.NExamples, r.SplitExamples)
	}
	s := fmt.Sprintf("n = %d of %d", r.NExamples, r.SplitExamples)
	if r.ExactOnSubsample != nil {
		s += "; exact " + num2(*r.ExactOnSubsample)
	}
	return s
}

// Validate reports the first field of r that would make an invalid or
// misleading results.json row: a NaN or infinite number (build rows with F),
// an empty experiment or estimator, a stage other than "epoch" or "final",
// or a negative epoch, count or time.
func (r *Row) Validate() error {
	for _, f := range r.floatFields() {
		if f.p != nil && (math.IsNaN(*f.p) || math.IsInf(*f.p, 0)) {
			return fmt.Errorf("field %s is %v; use report.F so that a missing number becomes null", f.name, *f.p)
		}
	}
	switch {
	case r.Experiment == "":
		return fmt.Errorf("field experiment is empty")
	case r.Stage != StageEpoch && r.Stage != StageFinal:
		return fmt.Errorf("field stage is %q, want %q or %q", r.Stage, StageEpoch, StageFinal)
	case r.Estimator == "":
		return fmt.Errorf("field estimator is empty")
	case r.Epoch < 0:
		return fmt.Errorf("field epoch is %d, want ≥ 0", r.Epoch)
	case r.NExamples < 0:
		return fmt.Errorf("field n_examples is %d, want ≥ 0", r.NExamples)
	case r.SplitExamples < 0:
		return fmt.Errorf("field split_examples is %d, want ≥ 0", r.SplitExamples)
	case r.SplitExamples > 0 && r.SplitExamples < r.NExamples:
		return fmt.Errorf("field split_examples is %d, below n_examples %d (the split cannot have fewer examples than its subsample)", r.SplitExamples, r.NExamples)
	case r.Runs < 0:
		return fmt.Errorf("field runs is %d, want ≥ 0", r.Runs)
	case r.Betas < 0:
		return fmt.Errorf("field betas is %d, want ≥ 0", r.Betas)
	case r.Seconds < 0:
		return fmt.Errorf("field seconds is %v, want ≥ 0", r.Seconds)
	}
	return nil
}

// describe names a row in error messages.
func (r *Row) describe(i int) string {
	s := "row ("
	if i >= 0 {
		s = fmt.Sprintf("row %d (", i)
	}
	s += fmt.Sprintf("experiment %q, %s", r.Experiment, r.Stage)
	if r.Stage == StageEpoch {
		s += fmt.Sprintf(" %d", r.Epoch)
	}
	s += ", " + r.Estimator
	if r.Split != "" {
		s += " " + r.Split
	}
	return s + ")"
}

// validateRows checks every row and names the first bad one.
func validateRows(rows []Row) error {
	for i := range rows {
		if err := rows[i].Validate(); err != nil {
			return fmt.Errorf("%s: %w", rows[i].describe(i), err)
		}
	}
	return nil
}

// Experiments returns the distinct experiment names of rows in order of
// first appearance.
func Experiments(rows []Row) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Experiment] {
			seen[r.Experiment] = true
			names = append(names, r.Experiment)
		}
	}
	return names
}

// Select returns the rows of the named experiment, in order (a new slice;
// the rows themselves are shared).
func Select(rows []Row, experiment string) []Row {
	var out []Row
	for _, r := range rows {
		if r.Experiment == experiment {
			out = append(out, r)
		}
	}
	return out
}
