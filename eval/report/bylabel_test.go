package report

import (
	"bytes"
	"strings"
	"testing"
)

// TestByLabelRendered: a final row's per-label means reach results.json
// (by_label entries with a label field, read back equal), the terminal
// table and the Markdown report, one line per label in increasing order;
// the main table is unchanged by them. Mutation checked: leaving the
// per-label table out of RenderTable fails it.
func TestByLabelRendered(t *testing.T) {
	row := Row{Experiment: "cd25", Stage: StageFinal, Epoch: 3, Estimator: "ais", Split: "test", Init: "base-rate", LogZ: F(300),
		MeanLoglik: F(-90), LoglikSE: F(0.2), NExamples: 10000, Warnings: []string{},
		ByLabel: []ClassStat{{Label: 1, MeanLoglik: F(-40.25), LoglikSE: F(0.31), NExamples: 1135}, {Label: 8, MeanLoglik: F(-96.81), LoglikSE: F(0.52), NExamples: 974}}}
	plain := row.Clone()
	plain.ByLabel = nil
	var js bytes.Buffer
	if err := EncodeResults(&js, []Row{row}); err != nil {
		t.Fatal(err)
	}
	if compact := strings.Join(strings.Fields(js.String()), ""); !strings.Contains(compact, `"by_label":[{"label":1,"mean_loglik":-40.25,"loglik_se":0.31,"n_examples":1135},{"label":8,`) {
		t.Errorf("results.json:\n%s", js.String())
	}
	back, err := DecodeResults(&js, "r")
	if err != nil || len(back) != 1 || len(back[0].ByLabel) != 2 || *back[0].ByLabel[1].MeanLoglik != -96.81 {
		t.Fatalf("read back %+v, %v", back, err)
	}
	var tab, base bytes.Buffer
	if err := RenderTable(&tab, []Row{row}, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	if err := RenderTable(&base, []Row{plain}, TableOptions{ASCII: true}); err != nil {
		t.Fatal(err)
	}
	out := tab.String()
	for _, want := range []string{ByLabelTitle, "cd25 ais (base-rate) test", "-40.25 ± 0.31 (1135)", "-96.81 ± 0.52 (974)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "-40.25"), strings.Index(out, "-96.81"); i < 0 || j < i {
		t.Errorf("labels out of order:\n%s", out)
	}
	if main, _, _ := strings.Cut(out, ByLabelTitle); !strings.HasPrefix(base.String(), strings.TrimRight(main, "\n")) {
		t.Errorf("the main table changed:\n%s\nwithout by_label:\n%s", main, base.String())
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, "t", nil, []Row{row}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), ByLabelTitle) || !strings.Contains(strings.Join(strings.Fields(md.String()), " "), "| 8 | -96.81 ± 0.52 (974) |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
