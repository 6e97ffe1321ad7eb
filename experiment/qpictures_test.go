package experiment_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family/kit/sampling"
)

// TestProposalPicturesInReport: an RBM trained by χ² learning gets the
// pictures of its proposal q (components, chains from q against random
// starts) beside its samples, shown in report.html with their own
// captions and redrawn by DrawImages from their files; an RBM trained by
// CD without a tracked proposal gets none. Mutation checked: not calling
// writeProposalPictures in the runner's finish fails it.
func TestProposalPicturesInReport(t *testing.T) {
	src := `name: qpics
seed: 1
base:
  data: {train: planted:train, test: planted:test, planted: {visible: 9, hidden: 2, train: 40, test: 20}}
  model: {type: rbm, hidden: 3}
  evaluate: {splits: [test], every_epoch: [], final: []}
experiments:
  - {name: chi2, train: {method: chi2, epochs: 1, batch_size: 20, momentum: 0, final_momentum: 0, learning_rate: 0.001, q_steps: 2, q_samples: 10, q_components: 4}}
  - {name: cd, train: {method: cd, epochs: 1, batch_size: 20}}
`
	f, err := config.Parse([]byte(src), "qpics.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if stderr, err := runTiny(t, f, experiment.Options{Out: dir}); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	pics := []string{sampling.QComponentsArtifact + ".png", sampling.QChainsArtifact + ".png"}
	for _, p := range pics {
		if _, err := os.Stat(filepath.Join(dir, "chi2", p)); err != nil {
			t.Errorf("chi2: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "cd", p)); err == nil {
			t.Errorf("cd (no proposal) has %s", p)
		}
	}
	checkHTML(t, dir, `id="chi2-q-components"`, `id="chi2-q-chains"`, "4 components of the χ² proposal q", "saved under chi2_q_")
	r, err := experiment.DrawImages(filepath.Join(dir, "chi2"))
	if err != nil || !slices.Contains(r.Drawn, pics[0]) || !slices.Contains(r.Drawn, pics[1]) || len(r.Stale) != 0 {
		t.Errorf("DrawImages: %+v, %v", r, err)
	}
	os.Remove(filepath.Join(dir, "chi2", sampling.QChainsArtifact+".npy"))
	if r, err := experiment.DrawImages(filepath.Join(dir, "chi2")); err != nil || !slices.Equal(r.Stale, []string{"q-chains.png (no q-chains.npy)"}) {
		t.Errorf("DrawImages without q-chains.npy: %+v, %v", r, err)
	}
}
