package models

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/npyx"
)

// TestCodecsAreTheOnlyTypesKnown: Save, Load and the recognition of a file
// without meta know the types of the set they are given and no others (the
// package keeps no registry), their errors list that set, and its order
// does not matter.
func TestCodecsAreTheOnlyTypesKnown(t *testing.T) {
	d, err := NewDBM(3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "dbm.npz")
	if err := Save(p, &Checkpoint{Model: d}, known); err != nil {
		t.Fatal(err)
	}
	few := Codecs{RBMType, IsingType}
	if err := Save(filepath.Join(dir, "x.npz"), &Checkpoint{Model: d}, few); err == nil || err.Error() != `unknown model type "dbm" (known: ising, rbm)` {
		t.Errorf("Save of a dbm knowing rbm and ising: %v", err)
	}
	if _, err := Load(p, few); err == nil || err.Error() != p+`: meta: unknown model type "dbm" (known: ising, rbm)` {
		t.Errorf("Load of a dbm knowing rbm and ising: %v", err)
	}
	// A program that registered no family learns which import it lacks.
	if _, err := Load(p, nil); err == nil || !strings.Contains(err.Error(), `_ "github.com/logz-ml/logz/family/all"`) {
		t.Errorf("Load knowing no type: %v; want the import to add named", err)
	}
	if c, err := Load(p, Codecs{DBMType}); err != nil || c.Model.TypeName() != "dbm" {
		t.Errorf("Load of a dbm knowing dbm: %v", err)
	}

	arrays := map[string]*npyx.Array{}
	for _, a := range DBMType.Arrays(d) {
		arrays[a.Name] = &npyx.Array{Shape: a.Shape, Data: a.Data}
	}
	want := "no meta array and no known set of parameter arrays (have W1, W2, b0, b1, b2; an ising needs fields, coupling_h, coupling_v; an rbm needs W, vbias, hbias)"
	if _, err := fromArrays(arrays, few); err == nil || err.Error() != want {
		t.Errorf("dbm arrays without meta, knowing rbm and ising:\n got %v\nwant %s", err, want)
	}
	if c, err := fromArrays(arrays, Codecs{DBMType}); err != nil || c.Model.TypeName() != "dbm" {
		t.Errorf("dbm arrays without meta, knowing dbm: %v", err)
	}

	// The set in another order: the same errors, word for word.
	backwards := slices.Clone(known)
	slices.Reverse(backwards)
	for _, a := range []map[string]*npyx.Array{
		{"X": zeros(2)},
		{"W1": zeros(3, 2), "W3": zeros(2, 2)},
		{"W": zeros(3, 2), "vbias": zeros(3), "hbias": zeros(2), "W1": zeros(3, 2), "W2": zeros(2, 2), "b0": zeros(3), "b1": zeros(2), "b2": zeros(2)},
	} {
		_, e1 := fromArrays(a, known)
		_, e2 := fromArrays(a, backwards)
		if e1 == nil || e2 == nil || e1.Error() != e2.Error() || !strings.HasPrefix(e1.Error(), "no meta array") {
			t.Errorf("the codecs in two orders:\n%v\n%v", e1, e2)
		}
	}
}

// TestLoadRefusesNegativeEpoch: a checkpoint whose meta says it is after
// epoch −5 is refused when read, naming the file, not taken on to resume
// training at a negative epoch.
func TestLoadRefusesNegativeEpoch(t *testing.T) {
	r := NewRBM(3, 2)
	p := filepath.Join(t.TempDir(), "model.npz")
	if err := Save(p, &Checkpoint{Model: r, Meta: Meta{Epoch: -5}}, known); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p, known)
	if want := p + ": meta: epoch -5: expected the number of completed training epochs (≥ 0)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load of a checkpoint after epoch -5: got %v, want %q", err, want)
	}
	if err := Save(p, &Checkpoint{Model: r, Meta: Meta{Epoch: 2}}, known); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(p, known); err != nil || c.Meta.Epoch != 2 {
		t.Errorf("Load after epoch 2: %v, %v", c, err)
	}
}
