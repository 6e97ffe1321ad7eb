package experiment_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/experiment"
)

// TestEpochLineSettings (issue 25, item 14): the epoch line shows the
// settings of the experiment's own trainer, named as its train: keys —
// not an RBM's k and momentum for an sbn, ising or vae (which printed
// "k=10 … mom=0.90" and "k=0 lr=… mom=0.00") — and the RBM, DBN and DBM
// lines are as they were; a trainer that says nothing of its settings
// (the plug-in family of plugin_test.go) gets those its summary holds:
// none.
func TestEpochLineSettings(t *testing.T) {
	src := `name: lines
seed: 1
base:
  data: {train: planted:train, test: planted:test, planted: {visible: 6, hidden: 2, train: 40, test: 20}}
  evaluate: {splits: [test], every_epoch: [], final: []}
experiments:
  - {name: rbm, model: {type: rbm, hidden: 2}, train: {method: cd, epochs: 1, batch_size: 20, momentum: 0.5}}
  - {name: rbm-pcd, model: {type: rbm, hidden: 2}, train: {method: pcd, k: 3, chains: 5, epochs: 1, batch_size: 20, momentum: 0, final_momentum: 0}}
  - {name: rbm-chi2, model: {type: rbm, hidden: 2}, train: {method: chi2, epochs: 1, batch_size: 20, momentum: 0, final_momentum: 0, learning_rate: 0.001}}
  - {name: dbn, model: {type: dbn, layers: [2, 2]}, train: {method: cd, epochs: 1, batch_size: 20, momentum: 0, final_momentum: 0}}
  - {name: dbm, model: {type: dbm, layers: [2, 2]}, train: {method: pcd, chains: 5, epochs: 1, batch_size: 20, momentum: 0, final_momentum: 0, pretrain: {epochs: 1, method: cd, k: 1, learning_rate: 0.05}}}
  - {name: sbn, model: {type: sbn, layers: [2]}, train: {epochs: 1, batch_size: 20, steps: 2}}
  - {name: sbn-sgnht, model: {type: sbn, layers: [2]}, train: {epochs: 1, batch_size: 20, steps: 2, method: sgnht, sampler: gibbs, samples: 2}}
  - {name: sbn-adam, model: {type: sbn, layers: [2]}, train: {epochs: 1, batch_size: 20, steps: 2, method: adam, learning_rate: 0.001}}
  - {name: ising, model: {type: ising, rows: 2, cols: 3}, train: {epochs: 1, batch_size: 20, chains: 10}}
  - {name: ising-exact, model: {type: ising, rows: 2, cols: 3}, train: {epochs: 1, batch_size: 20, method: exact, optimizer: sgd, learning_rate: 0.1}}
  - {name: ising-chi2, model: {type: ising, rows: 2, cols: 3}, train: {epochs: 1, batch_size: 20, method: chi2, q_steps: 2, q_samples: 10, q_components: 2}}
  - {name: vae, model: {type: vae, latent: 2, hidden: [3]}, train: {epochs: 1, batch_size: 20}}
  - {name: vae-rbm, model: {type: vae, latent: 2, hidden: [3], prior: rbm, prior_hidden: 2}, train: {epochs: 1, batch_size: 20, prior_training: pcd, chains: 5, k: 2}}
  - {name: vae-chi2, model: {type: vae, latent: 2, hidden: [3], prior: rbm, prior_hidden: 2}, train: {epochs: 1, batch_size: 20, samples: 2}}
  - {name: toy, model: {type: indep-test, smoothing: 0.5}, train: {epochs: 1}}
`
	f, err := config.Parse([]byte(src), "lines.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := runTiny(t, f, experiment.Options{Out: t.TempDir()})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := map[string]string{} // experiment: its last epoch line, up to the signal
	for _, l := range strings.Split(stderr, "\n") {
		if m := regexp.MustCompile(`^(\S+): (epoch .*?)  [a-z0-9-]+ -?[0-9.]+ \(`).FindStringSubmatch(l); m != nil {
			lines[m[1]] = m[2]
		}
	}
	for exp, want := range map[string]string{
		"rbm":         "epoch 1/1  k=1 lr=0.05 mom=0.50",
		"rbm-pcd":     "epoch 1/1  k=3 lr=0.05 mom=0.00",
		"rbm-chi2":    "epoch 1/1  chi2 lr=0.001 q_steps=10 q_samples=30 q_components=10",
		"dbn":         "epoch 2/2 layer 2  k=1 lr=0.05 mom=0.00",
		"dbm":         "epoch 3/3  k=1 lr=0.05 mom=0.00",
		"sbn":         "epoch 1/1  sghmc/adaptive-is lr=0.01 friction=0.1 steps=2 samples=5",
		"sbn-sgnht":   "epoch 1/1  sgnht/gibbs lr=0.01 noise_a=0.1 steps=2 samples=2",
		"sbn-adam":    "epoch 1/1  adam/adaptive-is lr=0.001 steps=2 samples=5",
		"ising":       "epoch 1/1  pcd adam lr=0.02 chains=10 sweeps=1",
		"ising-exact": "epoch 1/1  exact sgd lr=0.1",
		"ising-chi2":  "epoch 1/1  chi2 adam lr=0.02 q_steps=2 q_samples=10 q_components=2",
		"vae":         "epoch 1/1  nvil lr=0.0003 samples=1",
		"vae-rbm":     "epoch 1/1  nvil lr=0.0003 samples=1 prior_training=pcd chains=5 k=2",
		"vae-chi2":    "epoch 1/1  nvil lr=0.0003 samples=2 prior_training=chi2",
		"toy":         "epoch 1/1",
	} {
		if got, ok := lines[exp]; !ok || got != want {
			t.Errorf("%s: epoch line %q, want %q", exp, got, want)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", stderr)
	}
}
