package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// subsampleRows is the reported case of issue 25, item 4 (SBN quickstart
// numbers): exact −9.89 on the whole split of 1000; IS on 100 examples
// extended by the control variate to −9.90; AIS on 100 examples that could
// not be extended, −9.21, beside exact's −9.23 on the same examples.
func subsampleRows() []Row {
	base := Row{Experiment: "sbn-is", Model: "sbn 20-6", Stage: StageFinal, Epoch: 20, Split: "test"}
	ex, is, ais := base, base, base
	ex.Estimator, ex.MeanLoglik, ex.LoglikSE, ex.NExamples = "exact", p(-9.89), p(0.07), 1000
	is.Estimator, is.MeanLoglik, is.LoglikSE, is.NExamples, is.Runs = "is", p(-9.90), p(0.004), 100, 2000
	is.SplitExamples, is.ControlVariate, is.SubsampleMean, is.SubsampleSE, is.ExactOnSubsample = 1000, "exact log p(x)", p(-9.23), p(0.2), p(-9.228)
	ais.Estimator, ais.MeanLoglik, ais.LoglikSE, ais.NExamples, ais.Runs, ais.Betas = "ais", p(-9.21), p(0.2), 100, 16, 1000
	ais.SplitExamples, ais.SubsampleMean, ais.SubsampleSE, ais.ExactOnSubsample = 1000, p(-9.21), p(0.2), p(-9.23)
	return []Row{ex, is, ais}
}

// TestSubsampleInTables: a subsample row can no longer sit silently beside
// whole-split values in the terminal table, report.md or report.html: an
// extended row says "100 of 1000 + cv", one that was not says "n = 100 of
// 1000" with exact on the same examples, and a legend explains each.
// Mutation checked: dropping the tag from loglikCell fails it.
func TestSubsampleInTables(t *testing.T) {
	rows := subsampleRows()
	var term, md, page bytes.Buffer
	if err := RenderTable(&term, rows, TableOptions{ASCII: true, Width: -1}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, "t", nil, rows); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, "t", nil, rows, nil); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"terminal table": term.String(), "report.md": md.String(), "report.html": page.String()} {
		for _, want := range []string{
			"-9.90 ± 0.00 (100 of 1000 + cv)",
			"-9.21 ± 0.20 (n = 100 of 1000; exact -9.23)",
			"(k of N + cv): the estimator ran on k randomly chosen examples of the split's N, and a control variate extended its mean to all N",
			"(n = k of N): the mean is over k randomly chosen examples of the split's N, not over the whole split",
		} {
			if name == "report.html" {
				want = strings.ReplaceAll(want, "'", "&#39;")
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
	}
	// Whole-split rows alone: no tag, no legend.
	var plain bytes.Buffer
	if err := RenderTable(&plain, rows[:1], TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), " of 1000") || strings.Contains(plain.String(), "k of N") {
		t.Errorf("a whole-split table mentions a subsample:\n%s", plain.String())
	}
}

// TestSubsampleTagEpochGrid: the per-epoch tables tag subsample cells too.
func TestSubsampleTagEpochGrid(t *testing.T) {
	rows := subsampleRows()
	for i := range rows {
		rows[i].Stage = StageEpoch
	}
	g := epochGrid(rows)
	cells := strings.Join(g.rows[0], " | ")
	for _, want := range []string{"-9.90 (100 of 1000 + cv)", "-9.21 (n = 100 of 1000; exact -9.23)"} {
		if !strings.Contains(cells, want) {
			t.Errorf("epoch grid %q lacks %q", cells, want)
		}
	}
}

// TestSubsampleFieldsJSON: the new fields are added (omitted when unset),
// none renamed; split_examples below n_examples is refused.
func TestSubsampleFieldsJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeResults(&buf, subsampleRows()); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Estimates []map[string]any }
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	is := doc.Estimates[1]
	for k, want := range map[string]any{"n_examples": 100.0, "split_examples": 1000.0, "control_variate": "exact log p(x)",
		"subsample_mean": -9.23, "subsample_se": 0.2, "exact_on_subsample": -9.228, "mean_loglik": -9.90} {
		if is[k] != want {
			t.Errorf("is row %s = %v, want %v", k, is[k], want)
		}
	}
	for _, k := range []string{"split_examples", "control_variate", "subsample_mean", "subsample_se", "exact_on_subsample"} {
		if _, ok := doc.Estimates[0][k]; ok {
			t.Errorf("the whole-split exact row has %s", k)
		}
	}
	back, err := DecodeResults(bytes.NewReader(buf.Bytes()), "results.json")
	if err != nil || back[1].SubsampleTag() != "100 of 1000 + cv" || back[2].SubsampleTag() != "n = 100 of 1000; exact -9.23" {
		t.Errorf("round trip: %v, %q, %q", err, back[1].SubsampleTag(), back[2].SubsampleTag())
	}
	bad := subsampleRows()[1]
	bad.SplitExamples = 50
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "split_examples is 50, below n_examples 100") {
		t.Errorf("Validate() = %v", err)
	}
}

// TestCheckLowerBounds: a lower bound above the exact row of its evaluation
// beyond Tolerance warns when the two cover the same examples; a row
// compared example by example, a subsample's own mean and other
// evaluations are left alone.
func TestCheckLowerBounds(t *testing.T) {
	row := func(est string, mean, se float64, n int) Row {
		return Row{Experiment: "e", Stage: StageFinal, Epoch: 3, Split: "test", Estimator: est, MeanLoglik: p(mean), LoglikSE: p(se), NExamples: n}
	}
	lower := func(r *Row) bool { return r.Estimator == "is" || r.Estimator == "elbo" }
	for _, c := range []struct {
		name string
		r    Row
		warn string
	}{
		{"below exact: nothing", row("is", -10.0, 0.01, 1000), ""},
		{"whole split, above beyond noise", row("is", -9.5, 0.05, 1000), "is is 0.40 nats above exact (8.0σ; 3σ = 0.15)"},
		{"whole split, above within noise", row("is", -9.85, 0.05, 1000), ""},
		{"extended subsample, above beyond its error", func() Row {
			r := row("elbo", -9.80, 0.01, 100)
			r.SplitExamples, r.ControlVariate = 1000, "IS with q(z|x), 1 proposal per example"
			return r
		}(), "elbo is 0.10 nats above exact (10.0σ; 3σ = 0.03)"},
		{"a subsample's own mean is not compared", func() Row {
			r := row("is", -9.2, 0.2, 100)
			r.SplitExamples = 1000
			return r
		}(), ""},
		{"compared example by example already", func() Row {
			r := row("is", -9.5, 0.05, 1000)
			r.Notes = []string{ExactSameNote + "1000 examples: -9.900 (difference +0.400 ± 0.001)"}
			return r
		}(), ""},
		{"σ = 0 on one example: the floor", row("is", -9.895, 0, 1000), ""},
		{"not a lower bound", row("ais", -9.0, 0.01, 1000), ""},
		{"another epoch", func() Row { r := row("is", -9.0, 0.01, 1000); r.Epoch = 2; return r }(), ""},
	} {
		rows := []Row{row("exact", -9.9, 0.07, 1000), c.r}
		CheckLowerBounds(rows, lower)
		ws := strings.Join(rows[1].Warnings, "\n")
		if (c.warn == "") != (ws == "") || !strings.Contains(ws, c.warn) {
			t.Errorf("%s: warnings %q, want %q", c.name, rows[1].Warnings, c.warn)
		}
		if len(rows[0].Warnings) > 0 {
			t.Errorf("%s: the exact row got %q", c.name, rows[0].Warnings)
		}
	}
}
