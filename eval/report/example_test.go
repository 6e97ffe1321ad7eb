package report_test

import (
	"fmt"
	"math"
	"os"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/internal/nmath"
)

// A row as `logz eval --json` prints it: null for missing numbers, [] for no
// warnings, optional fields left out when unset.
func ExampleEncodeResults() {
	r := report.Row{
		Experiment: "cd1-25", Model: "rbm 784-25", Stage: report.StageFinal, Epoch: 10,
		Estimator: "exact", Split: "test",
		LogZ:       report.F(255.41),
		MeanLoglik: report.F(-151.57),
		LoglikSE:   report.F(math.NaN()), // undefined: left out, never NaN
		NExamples:  10000, Seconds: 12.5,
	}
	if err := report.EncodeResults(os.Stdout, []report.Row{r}); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "version": 1,
	//   "estimates": [
	//     {
	//       "experiment": "cd1-25",
	//       "model": "rbm 784-25",
	//       "stage": "final",
	//       "epoch": 10,
	//       "estimator": "exact",
	//       "split": "test",
	//       "log_z": 255.41,
	//       "log_z_lo": null,
	//       "log_z_hi": null,
	//       "mean_loglik": -151.57,
	//       "loglik_lo": null,
	//       "loglik_hi": null,
	//       "n_examples": 10000,
	//       "seconds": 12.5,
	//       "warnings": []
	//     }
	//   ]
	// }
}

// Fill log Ẑ and its error bars from AIS log weights.
func ExampleRow_SetLogZ() {
	// Weights 1 and 3 (in log space): Ẑ = 2, σ̂ = sd/√M = √2/√2 = 1.
	var r report.Row
	r.SetLogZ(nmath.Summarise([]float64{0, math.Log(3)}))
	show := func(p *float64) string {
		if p == nil {
			return "null"
		}
		x := math.Round(*p*1e4) / 1e4
		if x == 0 {
			x = 0 // no "-0.0000" from rounding
		}
		return fmt.Sprintf("%.4f", x)
	}
	fmt.Println("log Ẑ      ", show(r.LogZ), "= log 2")
	fmt.Println("log(Ẑ−σ̂)  ", show(r.LogZLo1), "= log 1")
	fmt.Println("log(Ẑ+σ̂)  ", show(r.LogZHi1), "= log 3")
	fmt.Println("log(Ẑ−3σ̂) ", show(r.LogZLo), "(Ẑ−3σ̂ < 0)")
	fmt.Println("log(Ẑ+3σ̂) ", show(r.LogZHi), "= log 5")
	fmt.Println("ESS        ", show(r.ESS), "= 16/10")
	// Output:
	// log Ẑ       0.6931 = log 2
	// log(Ẑ−σ̂)   0.0000 = log 1
	// log(Ẑ+σ̂)   1.0986 = log 3
	// log(Ẑ−3σ̂)  null (Ẑ−3σ̂ < 0)
	// log(Ẑ+3σ̂)  1.6094 = log 5
	// ESS         1.6000 = 16/10
}
