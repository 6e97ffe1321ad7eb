package config

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// resolvedWhole is Resolved as one yaml.v3 document, the way it was
// written before the experiments were encoded one by one; the test holds
// Resolved to its output byte for byte.
func resolvedWhole(f *File) ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(f); err != nil {
		return nil, err
	}
	src := f.Path
	if src == "" {
		src = "(no file)"
	}
	doc.HeadComment = "Resolved logz config of " + src + ": every default filled in.\n" +
		"Running this file reproduces the run (same seeds, same settings)."
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// TestResolvedAsOneDocument checks that encoding the experiments one at a
// time writes exactly what one encoder over the whole file writes, on the
// shipped configs, the format-1 files and configs with block-scalar and
// quoted text, every family, and many experiments.
func TestResolvedAsOneDocument(t *testing.T) {
	srcs := map[string]string{
		"block.yaml": `name: blk
description: |
  line one

    indented line three
  "quoted" # not a comment
seed: 0
base:
  data: {train: 'npy:/tmp/x y.npy', test: "idx:t10k: odd.gz", validation: 7}
experiments:
  - {name: a, model: {type: dbn, layers: [5, 4]}}
  - {name: b, model: {type: dbm, layers: [6, 3]}, evaluate: {every_epoch: [], final: [exact]}}
  - {name: "c-3", seed: 18446744073709551615}
  - {name: d, data: {train: "npy:/tmp/a\n\n  b.npy\n", test: "npy:/tmp/x\n"}}
`,
		"many.yaml": string(manyExperiments(50)),
	}
	for name, src := range shippedConfigs(t) {
		srcs[name] = src
	}
	old, _ := filepath.Glob("testdata/format1/*.yaml")
	for _, p := range old {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		srcs["format1/"+filepath.Base(p)] = string(b)
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			f := mustParse(t, src, name, Options{})
			got, err := f.Resolved()
			if err != nil {
				t.Fatal(err)
			}
			want, err := resolvedWhole(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Resolved differs from the one-document encoding:\n%s\n--- want\n%s", got, want)
			}
		})
	}
	empty := &File{Name: "none", Seed: 1}
	got, err := empty.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := resolvedWhole(empty); !bytes.Equal(got, want) {
		t.Errorf("no experiments: got\n%s\nwant\n%s", got, want)
	}
}
