package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// EpochsCSVHeader is the header line of epochs.csv.
var EpochsCSVHeader = []string{
	"epoch", "estimator", "split", "log_z", "log_z_lo", "log_z_hi",
	"mean_loglik", "loglik_lo", "loglik_hi", "value", "ess",
	"n_examples", "seconds", "warnings",
	// Added after the first release, at the end so that readers by position
	// keep working: the AIS start or χ² proposal (which tells two chi2 or
	// two ais entries apart), the exact log Z of the same evaluation beside
	// an estimate, and the [AIS, χ²] bracket on log Z.
	"init", "exact_log_z", "log_z_bracket_lo", "log_z_bracket_hi",
}

// WriteEpochsCSV writes the stage "epoch" rows of one experiment as
// epochs.csv: the EpochsCSVHeader line, then one line per row in the order
// given. Numbers are written in the shortest form that reads back exactly
// (strconv 'g', -1); a null number is an empty cell; warnings are joined
// with "; ". Final rows are skipped. Rows of more than one experiment, or a
// row that fails Validate, are an error (nothing is written); use Select to
// pick one experiment.
func WriteEpochsCSV(w io.Writer, rows []Row) error {
	var epochs []Row
	for _, r := range rows {
		if r.Stage == StageEpoch {
			epochs = append(epochs, r)
		}
	}
	if err := validateRows(epochs); err != nil {
		return fmt.Errorf("report: epochs.csv: %w", err)
	}
	for _, r := range epochs[min(1, len(epochs)):] {
		if r.Experiment != epochs[0].Experiment {
			return fmt.Errorf("report: epochs.csv: rows of experiments %q and %q; an epochs.csv holds one experiment (use report.Select)",
				epochs[0].Experiment, r.Experiment)
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(EpochsCSVHeader)
	rec := make([]string, len(EpochsCSVHeader))
	for _, r := range epochs {
		rec = append(rec[:0],
			strconv.Itoa(r.Epoch), r.Estimator, r.Split,
			csvFloat(r.LogZ), csvFloat(r.LogZLo), csvFloat(r.LogZHi),
			csvFloat(r.MeanLoglik), csvFloat(r.LoglikLo), csvFloat(r.LoglikHi),
			csvFloat(r.Value), csvFloat(r.ESS),
			strconv.Itoa(r.NExamples), strconv.FormatFloat(r.Seconds, 'g', -1, 64),
			strings.Join(r.Warnings, "; "),
			r.Init, csvFloat(r.ExactLogZ), csvFloat(r.LogZBracketLo), csvFloat(r.LogZBracketHi),
		)
		cw.Write(rec)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("report: epochs.csv: %w", err)
	}
	return nil
}

func csvFloat(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}
