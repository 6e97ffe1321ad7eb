package config

import "testing"

// TestFlatten: experiments are keyed by name, other lists of mappings by
// index, lists of scalars are one value.
func TestFlatten(t *testing.T) {
	doc := `name: n
seed: 1
experiments:
  - name: cd
    train: {epochs: 3}
    evaluate:
      splits: [test, train]
      final:
        - {name: exact}
        - {name: ais, betas: 100}
  - name: pcd
    train: {epochs: 4}
`
	got, err := Flatten([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"name": "n", "seed": "1",
		"experiments[cd].name": "cd", "experiments[cd].train.epochs": "3",
		"experiments[cd].evaluate.splits":         "[test, train]",
		"experiments[cd].evaluate.final[0].name":  "exact",
		"experiments[cd].evaluate.final[1].name":  "ais",
		"experiments[cd].evaluate.final[1].betas": "100",
		"experiments[pcd].name":                   "pcd", "experiments[pcd].train.epochs": "4",
	}
	if len(got) != len(want) {
		t.Errorf("got %d keys, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
