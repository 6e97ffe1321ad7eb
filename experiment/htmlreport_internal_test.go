package experiment

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/logz-ml/logz/eval/report"
)

// TestHTMLReportBudget: after an epoch report.html is rewritten only when
// the time since the last write is at least htmlBudget times its cost;
// the writes after an experiment always happen, unless report.html shows
// those rows already.
func TestHTMLReportBudget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	h := newHTMLReport(dir, "t", nil)
	var rows []report.Row
	next := func() []report.Row { // rows with one epoch more
		rows = append(rows, report.Row{Experiment: "a", Stage: report.StageEpoch, Epoch: len(rows) + 1, Estimator: "exact", Split: "test", MeanLoglik: new(float64), Warnings: []string{}})
		return rows
	}
	if err := h.epoch(next()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the first epoch's report.html: %v", err)
	}
	os.Remove(path)
	h.lastEnd, h.lastCost = time.Now(), time.Second // due in htmlBudget seconds
	if err := h.epoch(next()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("report.html rewritten within the budget (%v)", err)
	}
	h.lastEnd = time.Now().Add(-htmlBudget * time.Second)
	if err := h.epoch(next()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("report.html not rewritten once due: %v", err)
	}
	os.Remove(path)
	h.lastEnd, h.lastCost = time.Now(), time.Hour
	if err := h.write(next()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("write skipped: %v", err)
	}
	os.Remove(path)
	if err := h.write(rows); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("report.html rewritten for the rows it shows (%v)", err)
	}
}
