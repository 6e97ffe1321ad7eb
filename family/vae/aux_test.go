package vae

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/train"
)

// TestAuxiliarySettings: a negative auxiliary or a non-positive
// auxiliary_hidden is one problem naming its key; auxiliary: 0 builds the
// plain VAE, auxiliary: 2 one with q(a|x), p(a|x,z) and a's input to the
// encoder, whose trainer under the default train settings trains in
// float32, with no precision note on the epoch line.
func TestAuxiliarySettings(t *testing.T) {
	for key, set := range map[string]func(*Model){
		"auxiliary":        func(m *Model) { m.Auxiliary = -1 },
		"auxiliary_hidden": func(m *Model) { m.Auxiliary, m.AuxiliaryHidden = 10, 0 },
	} {
		m := DefaultModel()
		set(&m)
		var p familytest.Problems
		m.Check(&p)
		if len(p) != 1 || !strings.HasPrefix(p[0], key+":") {
			t.Errorf("bad %s: problems %v, want one naming the key", key, p)
		}
	}
	ms := DefaultModel()
	ms.Latent, ms.Hidden = 4, []int{5}
	plain, err := Plugin{}.NewModel(&ms, 6)
	if err != nil || plain.(*models.VAE).Aux != nil {
		t.Fatalf("auxiliary: 0 gave %v (error %v)", plain, err)
	}
	ms.Auxiliary, ms.AuxiliaryHidden = 2, 3
	mm, err := Plugin{}.NewModel(&ms, 6)
	if err != nil {
		t.Fatal(err)
	}
	m := mm.(*models.VAE)
	if m.Aux == nil || m.Label() != "vae 6-5-4 ber(4) aux(2,3)" {
		t.Fatalf("auxiliary: 2 gave %s", m.Label())
	}
	s := DefaultTrain()
	s.BatchSize, s.BaselineHidden = 10, 4
	tr, sum := trainOneEpoch(t, m, &ms, &s)
	vt := tr.(*train.VAETrainer)
	if line := vt.EpochSettings(sum); vt.Opt.Precision != kernel.Float32 || strings.Contains(line, "precision") {
		t.Errorf("auxiliary model under precision float32: trained in %q, epoch line %q", vt.Opt.Precision, line)
	}
}
