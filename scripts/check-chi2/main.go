// Command check-chi2 checks the results of configs/quickstart-chi2.yaml and
// configs/ising-tracking.yaml against the widths their READMEs state:
//
//	check-chi2 quickstart DIR   final rows: AIS's ±3σ band holds exact log Z;
//	                            χ² ≥ exact − 3 se, and χ² − exact ≤ 0.1 nats
//	                            (mixture q) or ≤ 2 nats (aux q)
//	check-chi2 tracking DIR     per epoch from epoch 10: the tracked bound
//	                            (the trainer's chi2-logz) minus exact log Z
//	                            averages in [0, 0.35] nats and never falls
//	                            more than 0.3 under exact
//
// It prints what it compared and exits 1 on a failure (scripts/check-chi2.sh).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/logz-ml/logz/eval/report"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: check-chi2 quickstart|tracking RUN-DIR")
		os.Exit(2)
	}
	rows, err := report.ReadResults(filepath.Join(os.Args[2], "results.json"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "check-chi2:", err)
		os.Exit(1)
	}
	var fails int
	switch os.Args[1] {
	case "quickstart":
		fails = quickstart(rows)
	case "tracking":
		fails = tracking(rows)
	default:
		fmt.Fprintln(os.Stderr, "check-chi2: unknown check", os.Args[1])
		os.Exit(2)
	}
	if fails > 0 {
		fmt.Printf("check-chi2 %s: %d failure(s)\n", os.Args[1], fails)
		os.Exit(1)
	}
	fmt.Printf("check-chi2 %s: ok\n", os.Args[1])
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func quickstart(rows []report.Row) int {
	fails, seen := 0, 0
	for _, r := range rows {
		if r.Stage != report.StageFinal || r.LogZ == nil || r.ExactLogZ == nil || r.Split != "test" {
			continue
		}
		exact := *r.ExactLogZ
		switch r.Estimator {
		case "ais":
			ok := val(r.LogZLo) <= exact && exact <= val(r.LogZHi)
			fmt.Printf("%-10s ais           %.3f  band [%.3f, %.3f]  exact %.3f  %s\n", r.Experiment, *r.LogZ, val(r.LogZLo), val(r.LogZHi), exact, okStr(ok))
			if !ok {
				fails++
			}
		case "chi2":
			seen++
			se := val(r.LogZHi1) - *r.LogZ
			width := 0.1
			if r.Init == "aux" {
				width = 2
			}
			gap := *r.LogZ - exact
			ok := gap >= -3*se && gap <= width
			fmt.Printf("%-10s chi2 (%-7s) %.3f ± %.3f  exact %.3f  χ² − exact %+.3f (≤ %.1f)  %s\n", r.Experiment, r.Init, *r.LogZ, se, exact, gap, width, okStr(ok))
			if !ok {
				fails++
			}
		}
	}
	if seen == 0 {
		fmt.Println("no final chi2 rows with an exact log Z")
		fails++
	}
	return fails
}

func tracking(rows []report.Row) int {
	tracked, exact := map[int]float64{}, map[int]float64{}
	for _, r := range rows {
		if r.Stage != report.StageEpoch {
			continue
		}
		if r.Estimator == "train" && r.Init == "chi2-logz" && r.Value != nil {
			tracked[r.Epoch] = *r.Value
		}
		if r.Estimator == "exact" && r.LogZ != nil {
			exact[r.Epoch] = *r.LogZ
		}
	}
	sum, n, fails := 0.0, 0, 0
	for e := 10; ; e++ {
		t, ok1 := tracked[e]
		x, ok2 := exact[e]
		if !ok1 || !ok2 {
			break
		}
		sum += t - x
		n++
		if t-x < -0.3 {
			fmt.Printf("epoch %d: tracked %.3f is %.3f under exact %.3f\n", e, t, x-t, x)
			fails++
		}
	}
	if n == 0 {
		fmt.Println("no epochs ≥ 10 with both a tracked and an exact log Z")
		return 1
	}
	mean := sum / float64(n)
	ok := mean >= 0 && mean <= 0.35
	fmt.Printf("epochs 10–%d: tracked − exact averages %+.3f nats (want [0, 0.35])  %s\n", 9+n, mean, okStr(ok))
	if !ok {
		fails++
	}
	return fails
}

func okStr(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}
