package vae

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestOverflowWarned: a VAE with auxiliary variables whose auxiliary nets'
// parameters are huge makes IS and the ELBO overflow. With every
// auxiliary parameter 1e300 their means are NaN; with p(a|x,z)'s 1e200
// they are finite (about −8e200) but without a standard error. Either way the is and elbo rows warn, naming the estimator and
// the cause, and the table does not say "Warnings: none" beside a dash;
// exact (which does not use the auxiliary nets) stays finite and silent.
// Mutation checked: dropping report.CheckRows from evalenv.Env.Run leaves both
// rows without a warning.
func TestOverflowWarned(t *testing.T) {
	mean, se := "the mean log-likelihood is not a finite number (NaN or ±Inf; shown as —)", "the standard error of the mean log-likelihood is not a finite number"
	for _, c := range []struct {
		nets  string
		scale float64
		want  map[string]string
	}{
		{"aux_", 1e300, map[string]string{"is": mean, "elbo": mean}},
		{"aux_p_", 1e200, map[string]string{"is": se, "elbo": se}},
	} {
		m := tinyVAE(t, 3, 7, 1.0)
		if err := m.AddAux(2, 3); err != nil {
			t.Fatal(err)
		}
		for _, a := range models.VAEType.Arrays(m) {
			if strings.HasPrefix(a.Name, c.nets) {
				for i := range a.Data {
					a.Data[i] = c.scale
				}
			}
		}
		is := family.Configured{Name: "is", Settings: &ISSettings{Samples: 20, PriorLogZ: defaultPriorLogZ()}}
		elbo := family.Configured{Name: "elbo", Settings: &ISSettings{Samples: 20, PriorLogZ: defaultPriorLogZ()}}
		r := evaluate(t, m, allX(), 3, VAE.Entry("exact"), is, elbo)
		var rows []report.Row
		for _, name := range []string{"exact", "is", "elbo"} {
			row := r[name]
			rows = append(rows, row)
			warned := strings.Contains(strings.Join(row.Warnings, "\n"), name+": "+c.want[name]) &&
				strings.Contains(strings.Join(row.Warnings, "\n"), "check the parameters")
			if warned != (name != "exact") || name == "exact" && len(row.Warnings) > 0 {
				t.Errorf("scale %g, %s: warnings %q", c.scale, name, row.Warnings)
			}
		}
		var b strings.Builder
		if err := report.RenderTable(&b, rows, report.TableOptions{}); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); strings.Contains(out, "Warnings: none") || !strings.Contains(out, "check the parameters") {
			t.Errorf("scale %g: table\n%s", c.scale, out)
		}
	}
}
