package all_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestCodecsAreTheFamilies: the family registry is the one registry of model
// types. family.Codecs holds each registered family's codec, in order; through
// it models.Load reads a file any family wrote without meta (as NumPy would)
// as that family's model, and refuses a type no family registered, listing
// every family.
func TestCodecsAreTheFamilies(t *testing.T) {
	fams, codecs := family.All(), family.Codecs()
	if len(codecs) != len(fams) {
		t.Fatalf("%d codecs for %d families", len(codecs), len(fams))
	}
	dir := t.TempDir()
	write := func(name string, arrays []models.Array, meta string) string {
		p := filepath.Join(dir, name+".npz")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		w := npz.NewWriter(f)
		for _, a := range arrays {
			var v any = a.Data
			if len(a.Shape) == 2 {
				v = mat.NewDense(a.Shape[0], a.Shape[1], a.Data)
			}
			if err := w.Write(a.Name, v); err != nil {
				t.Fatal(err)
			}
		}
		if meta != "" {
			if err := w.Write("meta", []uint8(meta)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for i, f := range fams {
		if codecs[i].Name != f.Name {
			t.Errorf("codec %d is %q, family %d is %q", i, codecs[i].Name, i, f.Name)
			continue
		}
		c, ok := tiny[f.Name]
		if !ok {
			t.Errorf("%s has no tiny config", f.Name)
			continue
		}
		m, err := f.Plugin.NewModel(parse(t, f, c, c.train[0], "").Model.Settings, visible)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		ck, err := models.Load(write(f.Name, f.Codec.Arrays(m), ""), codecs)
		if err != nil || ck.Model.TypeName() != f.Name {
			t.Errorf("%s written without meta: loaded %v, %v", f.Name, ck, err)
		}
	}
	p := write("nosuch", nil, `{"type":"nosuch","format":1}`)
	want := p + `: meta: unknown model type "nosuch" (known: ` + strings.Join(family.Names(), ", ") + ")"
	if _, err := models.Load(p, codecs); err == nil || err.Error() != want {
		t.Errorf("a type no family registered:\n got %v\nwant %s", err, want)
	}
}
