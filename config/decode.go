package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/logz-ml/logz/family"
	"gopkg.in/yaml.v3"
)

// parser collects the problems of one file.
type parser struct {
	file  string
	opt   Options
	errs  ErrorList
	warns []string
	// origin is, after expandGrids, the index in the file as written of
	// each experiment (a grid's points share their experiment's); nil
	// when the file has no grid.
	origin []int
	// gridLines are the lines of the grids' values (expandGrids).
	gridLines map[int][]gridValueLine
}

// written returns the index in the file as written of experiment i.
func (p *parser) written(i int) int {
	if i < len(p.origin) {
		return p.origin[i]
	}
	return i
}

// warnf records a warning: a value that is valid but does nothing, or not
// what it seems; the config is still read. File.Warnings holds them.
func (p *parser) warnf(line int, path, format string, args ...any) {
	e := &Error{File: p.file, Line: line, Path: p.gridPath(line, path), Msg: fmt.Sprintf(format, args...)}
	if o, ok := p.overrideOf(line); ok {
		e.Line, e.Set, e.Path = 0, o.Arg, o.shownPath(path)
	}
	// A value of base: is checked once per experiment; say it once.
	if w := e.Error(); !slices.Contains(p.warns, w) {
		p.warns = append(p.warns, w)
	}
}

func (p *parser) errorf(line int, path, format string, args ...any) {
	e := &Error{File: p.file, Line: line, Path: p.gridPath(line, path), Msg: fmt.Sprintf(format, args...)}
	if o, ok := p.overrideOf(line); ok {
		e.Line, e.Set, e.Path = 0, o.Arg, o.shownPath(path)
	}
	p.errs = append(p.errs, e)
}

func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return p.errs.sorted()
}

// document parses the YAML text and returns its top-level node, or nil
// after recording why there is none.
func (p *parser) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(0, "", "empty config (expected a mapping with at least the key \"experiments\")")
			return nil
		}
		p.syntaxError(data, err)
		return nil
	}
	var second yaml.Node
	if err := dec.Decode(&second); err == nil {
		p.errorf(second.Line, "", "a second YAML document (---) in the file; a config is one document")
	} else if !errors.Is(err, io.EOF) {
		p.syntaxError(data, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			p.errorf(0, "", "empty config (expected a mapping with at least the key \"experiments\")")
			return nil
		}
		root = root.Content[0]
	}
	root = deref(root)
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		p.errorf(0, "", "empty config (expected a mapping with at least the key \"experiments\")")
		return nil
	}
	if root.Kind != yaml.MappingNode {
		p.errorf(root.Line, "", "expected a mapping at the top level (keys %s), got %s",
			strings.Join(topKeys, ", "), describe(root))
		return nil
	}
	return root
}

// syntaxError records a YAML syntax error, pointing at tab indentation
// when that is the cause.
func (p *parser) syntaxError(data []byte, err error) {
	line, msg := yamlSyntaxLine(data, err)
	lines := strings.Split(string(data), "\n")
	// The scanner may report the line after the tab; look at both.
	for _, l := range []int{line, line + 1} {
		if l >= 1 && l <= len(lines) {
			text := lines[l-1]
			indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
			if strings.Contains(indent, "\t") {
				p.errorf(l, "", "tab character in indentation (YAML indents with spaces only)")
				return
			}
		}
	}
	p.errorf(line, "", "invalid YAML: %s", msg)
}

var topKeys = []string{"name", "description", "seed", "sweep", "base", "experiments"}

// parse decodes the whole file.
func (p *parser) parse(data []byte) *File {
	f := &File{Name: defaultName(p.file), Seed: 1}
	if p.file == "<config>" {
		f.Name = "config"
	}
	root := p.document(data)
	if root == nil {
		return f
	}
	p.gridLines = map[int][]gridValueLine{}
	p.expandGrids(root)
	p.applyOverrides(root)
	top := &scope{p: p, lines: map[string]where{}}
	var baseNode, expNode *yaml.Node
	var baseLine, expLine, sweepLine int
	for _, kv := range p.pairs(root, "") {
		switch kv.key {
		case "name":
			var s string
			if top.scalar(kv.val, reflect.ValueOf(&s).Elem(), field{want: "a name of letters, digits, '.', '_' or '-'"}, "name") {
				if !validName(s) {
					p.errorf(kv.line, "name", "expected a name of letters, digits, '.', '_' or '-' (it names the run directory), got %q", s)
				} else {
					f.Name = s
				}
			}
		case "description":
			top.scalar(kv.val, reflect.ValueOf(&f.Description).Elem(), field{want: "a string"}, "description")
		case "seed":
			top.scalar(kv.val, reflect.ValueOf(&f.Seed).Elem(), field{want: "a non-negative integer"}, "seed")
		case "sweep":
			top.scalar(kv.val, reflect.ValueOf(&f.Sweep).Elem(), field{want: "a setting's path, e.g. data.planted.weight_scale"}, "sweep")
			sweepLine = kv.line
		case "base":
			baseNode, baseLine = kv.val, kv.line
		case "experiments":
			expNode, expLine = kv.val, kv.line
		default:
			p.unknownKey(kv, "", topKeys)
		}
	}
	if p.opt.Seed != nil {
		f.Seed = *p.opt.Seed
	}

	// base: decoded on top of the defaults; each experiment on top of it.
	base := Default()
	baseLines := map[string]where{}
	baseDeferred := map[string]kv{}
	if baseNode != nil {
		bs := &scope{p: p, prefix: "base", lines: baseLines, isBase: true, deferred: baseDeferred}
		bs.value(baseNode, reflect.ValueOf(&base).Elem(), field{want: "a mapping of experiment keys"}, "", baseLine)
	}
	if expNode == nil {
		p.errorf(0, "experiments", "missing required key (a list of at least one experiment)")
		return f
	}
	seq := deref(expNode)
	if seq.Kind != yaml.SequenceNode {
		p.errorf(expLine, "experiments", "expected a list of experiments (\"- name: ...\"), got %s", describe(seq))
		return f
	}
	if len(seq.Content) == 0 {
		p.errorf(expLine, "experiments", "expected at least one experiment, got an empty list")
		return f
	}
	type named struct {
		index int
		name  string
	}
	seen := map[string]named{}            // lower-cased name → first experiment with it
	gridSelect := map[string]Experiment{} // grid → its first point
	f.progress = p.opt.Progress
	for i, item := range seq.Content {
		if f.progress != nil && i%progressEvery == 0 && i > 0 {
			f.progress("reading", i, len(seq.Content))
		}
		item = deref(item)
		prefix := fmt.Sprintf("experiments[%d]", p.written(i))
		if item.Kind != yaml.MappingNode {
			p.errorf(item.Line, prefix, "expected a mapping (an experiment with name, data, model, train, evaluate), got %s", describe(item))
			continue
		}
		e := base.Clone()
		lines := make(map[string]where, len(baseLines)+32)
		for k, v := range baseLines {
			lines[k] = v
		}
		lines[""] = where{line: item.Line}
		s := &scope{p: p, prefix: prefix, lines: lines, deferred: map[string]kv{}}
		s.mapping(item, reflect.ValueOf(&e).Elem(), "")
		bs := &scope{p: p, prefix: "base", lines: lines, isBase: true}
		s.familySections(&e, bs, baseDeferred)
		if e.Seed == 0 {
			e.Seed = DeriveSeed(f.Seed, uint64(i))
		}
		binarizeSeed := DeriveSeed(f.Seed, binarizeLabel)
		seedSet := e.Data.BinarizeSeed != 0 && e.Data.BinarizeSeed != binarizeSeed
		if e.Data.BinarizeSeed == 0 {
			// From the file seed, not the experiment's: every experiment of a
			// file sees the same binarised images, so one table compares
			// models on one test set.
			e.Data.BinarizeSeed = binarizeSeed
		}
		v := &validator{scope: s}
		v.experiment(&e)
		v.binarizeWarnings(&e, seedSet)
		if !e.Grid.IsZero() {
			// One select: chooses among all the points of a grid.
			if first, ok := gridSelect[e.Grid.Of]; !ok {
				gridSelect[e.Grid.Of] = e
			} else if first.Select != e.Select {
				s.errorAt("select", "%s differs from the select of %s, another point of the grid %s: one select chooses among all the grid's points (set it for the grid, e.g. --set %s:select.split=valid)",
					showSelect(e.Select), first.Name, e.Grid.Of, e.Grid.Of)
			}
		}
		if e.Name != "" {
			low := strings.ToLower(e.Name)
			if prev, dup := seen[low]; dup {
				what := ""
				if !e.Grid.IsZero() {
					what = " (a point of the grid of " + e.Grid.Of + ")"
				}
				if prev.name == e.Name {
					s.errorAt("name", "duplicate experiment name %q%s (also experiments[%d]); names must be unique", e.Name, what, prev.index)
				} else {
					s.errorAt("name", "experiment name %q%s differs from experiments[%d] %q only in case; names become directory names and must differ ignoring case", e.Name, what, prev.index, prev.name)
				}
			} else {
				seen[low] = named{p.written(i), e.Name}
			}
		}
		f.Experiments = append(f.Experiments, e)
	}
	if f.progress != nil {
		f.progress("reading", len(seq.Content), len(seq.Content))
	}
	if f.Sweep != "" {
		for _, e := range f.Experiments {
			if _, err := SweepValue(e, f.Sweep); err != nil {
				p.errorf(sweepLine, "sweep", "experiment %s: %v (expected the path of a numeric setting, e.g. data.planted.weight_scale)", e.Name, strings.TrimPrefix(err.Error(), "sweep: "))
				break
			}
		}
	}
	return f
}

// showSelect writes a select: setting as the file would.
func showSelect(s Select) string {
	if s.IsZero() {
		return "no select"
	}
	return fmt.Sprintf("select {split: %s, estimator: %s}", s.Split, s.Estimator)
}

// progressEvery is the number of experiments between two calls of
// Options.Progress (a variable for tests).
var progressEvery = 1024

// familySections decodes the parts of experiment e that belong to its model
// family: model:, train: and the estimator lists. The family is the
// experiment's model.type, else base's, else DefaultModelType. Each section
// starts from the family's defaults; base's section (decoded by bs, whose
// errors name base) then the experiment's are decoded onto it; a list the
// experiment does not set comes from base, else from the family.
func (s *scope) familySections(e *Experiment, bs *scope, baseDef map[string]kv) {
	typ := DefaultModelType
	for _, src := range []struct {
		sc  *scope
		def map[string]kv
	}{{bs, baseDef}, {s, s.deferred}} {
		m, ok := src.def["model"]
		if !ok {
			continue
		}
		n := deref(m.val)
		if n.Kind != yaml.MappingNode {
			continue // reported when the section is decoded
		}
		for _, p := range s.p.pairs(n, src.sc.full("model")) {
			if p.key != "type" {
				continue
			}
			var t string
			src.sc.set("model.type", p.line)
			if src.sc.scalar(p.val, reflect.ValueOf(&t).Elem(), field{want: "a model type such as rbm"}, "model.type") {
				typ = t
			}
		}
	}
	f, err := family.Lookup(typ)
	if err != nil {
		names := family.Names()
		s.errorAt("model.type", "unknown model type %q%s", typ, knownHint(typ, names))
		e.Model, e.Train = Model{Type: typ}, nil
		e.Evaluate.EveryEpoch, e.Evaluate.Final = nil, nil
		return
	}
	e.setFamily(f)
	for _, src := range []struct {
		sc  *scope
		def map[string]kv
	}{{bs, baseDef}, {s, s.deferred}} {
		if m, ok := src.def["model"]; ok {
			src.sc.familySection(m, reflect.ValueOf(e.Model.Settings).Elem(), "model", "type", f.Name)
		}
		if t, ok := src.def["train"]; ok {
			src.sc.familySection(t, reflect.ValueOf(e.Train).Elem(), "train", "", f.Name)
		}
	}
	for _, l := range []struct {
		rel  string
		list *[]Estimator
	}{{"evaluate.every_epoch", &e.Evaluate.EveryEpoch}, {"evaluate.final", &e.Evaluate.Final}} {
		if n, ok := s.deferred[l.rel]; ok {
			*l.list = s.estimatorList(n, l.rel, f)
		} else if n, ok := baseDef[l.rel]; ok {
			*l.list = bs.estimatorList(n, l.rel, f)
		}
	}
}

// familySection decodes a model: or train: node onto the family's struct.
func (s *scope) familySection(e kv, rv reflect.Value, rel, skip, fam string) {
	n := deref(e.val)
	s.set(rel, e.line)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // "train:" with nothing under it: nothing overridden
	}
	if n.Kind != yaml.MappingNode {
		keys := fieldsOf(rv.Type()).keys
		if skip != "" {
			keys = append([]string{skip}, keys...)
		}
		s.errorf(n.Line, rel, "expected a mapping (%s), got %s", strings.Join(keys, ", "), describe(n))
		return
	}
	s.section(n, rv, rel, sectionOpts{skip: skip, family: fam})
}

// estimatorList decodes an evaluate list with the estimators of family f.
// An entry that cannot be decoded is kept as a zero entry (which
// validation skips), so that the other entries are still checked.
func (s *scope) estimatorList(e kv, rel string, f *family.Family) []Estimator {
	n := deref(e.val)
	s.set(rel, e.line)
	if n.Kind != yaml.SequenceNode {
		s.errorf(n.Line, rel, "expected a list of estimators, got %s", describe(n))
		return nil
	}
	var out []Estimator
	for i, item := range n.Content {
		irel := fmt.Sprintf("%s[%d]", rel, i)
		s.set(irel, deref(item).Line)
		out = append(out, s.estimator(item, irel, f))
	}
	return out
}

// estimator decodes one evaluate list entry: a mapping with a name, or a
// bare name, of an estimator of family f. Settings the estimator does not
// have are errors; the ones it has and the entry does not set keep the
// estimator's defaults.
func (s *scope) estimator(n *yaml.Node, rel string, f *family.Family) Estimator {
	n = deref(n)
	names := f.EstimatorNames()
	var name string
	var nameLine int
	var rest []kv
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		name, nameLine = n.Value, n.Line
	case n.Kind == yaml.MappingNode:
		found := false
		for _, e := range s.p.pairs(n, s.full(rel)) {
			if e.key != "name" {
				rest = append(rest, e)
				continue
			}
			found = true
			nameLine = e.line
			s.set(join(rel, "name"), e.line)
			if !s.scalar(e.val, reflect.ValueOf(&name).Elem(), field{want: "an estimator name (" + strings.Join(names, ", ") + ")"}, join(rel, "name")) {
				return Estimator{}
			}
		}
		if !found {
			s.errorf(n.Line, rel, "missing required key \"name\" (one of %s)", strings.Join(names, ", "))
			return Estimator{}
		}
	default:
		s.errorf(n.Line, rel, "expected an estimator ({name: ais, runs: 100, ...} or a bare name such as exact), got %s", describe(n))
		return Estimator{}
	}
	spec, ok := f.Estimator(name)
	if !ok {
		s.errorf(nameLine, join(rel, "name"), "%s", unknownEstimator(name, f))
		return Estimator{}
	}
	est := Estimator{Name: name, Settings: spec.New()}
	rv := reflect.ValueOf(est.Settings).Elem()
	fs := fieldsOf(rv.Type())
	var legacy map[string]any
	if l, ok := est.Settings.(family.Legacy); ok {
		legacy = l.Legacy()
	}
	for _, e := range rest {
		fld, has := fs.byKey[e.key]
		old, isLegacy := legacy[e.key]
		switch {
		case has:
			// value: a scalar, or a nested section (a sandwich's ais: and
			// raise:), decoded as strictly as the entry.
			s.value(e.val, rv.FieldByIndex(fld.index), fld, join(rel, e.key), e.line)
		case isLegacy:
			s.legacyKey(e, old, join(rel, e.key), f.Name)
		case anyEstimatorKey(e.key):
			settings := "it has no settings"
			if len(fs.keys) > 0 {
				settings = "its settings: " + strings.Join(fs.keys, ", ")
			}
			s.errorf(e.line, join(rel, e.key), "not a setting of estimator %q (%s)", name, settings)
		default:
			s.p.unknownKey(e, s.full(rel), append([]string{"name"}, fs.keys...))
		}
	}
	return est
}

// unknownEstimator explains a name that is not an estimator of family f:
// another family's estimator, or no estimator at all.
func unknownEstimator(name string, f *family.Family) string {
	names := f.EstimatorNames()
	owners, all := family.KnownEstimator(name)
	if len(owners) > 0 {
		return fmt.Sprintf("%s is an estimator of model type %s, not of %s (the model type is %s; its estimators: %s)",
			name, orList(owners), f.Name, f.Name, strings.Join(names, ", "))
	}
	if c, ok := suggest(name, names); ok {
		return fmt.Sprintf("unknown estimator %q (did you mean %q?; known for model type %s: %s)", name, c, f.Name, strings.Join(names, ", "))
	}
	if c, ok := suggest(name, all); ok {
		o, _ := family.KnownEstimator(c)
		return fmt.Sprintf("unknown estimator %q (did you mean %q, an estimator of model type %s?; known for model type %s: %s)", name, c, orList(o), f.Name, strings.Join(names, ", "))
	}
	return fmt.Sprintf("unknown estimator %q (known for model type %s: %s)", name, f.Name, strings.Join(names, ", "))
}

// anyEstimatorKey reports whether key is a setting of some estimator of
// some family.
func anyEstimatorKey(key string) bool {
	for _, f := range family.All() {
		for _, e := range f.Estimators {
			if _, ok := fieldsOf(reflect.TypeOf(e.New()).Elem()).byKey[key]; ok {
				return true
			}
		}
	}
	return false
}

// kv is one key/value pair of a YAML mapping.
type kv struct {
	key  string
	line int
	val  *yaml.Node
}

// deref follows aliases (and unwraps documents).
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) == 1:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

// pairs lists the entries of a mapping node, reporting duplicate and
// non-string keys. YAML merge keys (<<: *anchor) are honoured: explicit keys
// win over merged ones, and earlier merge sources over later ones.
func (p *parser) pairs(n *yaml.Node, path string) []kv {
	return p.pairsDepth(n, path, 0)
}

func (p *parser) pairsDepth(n *yaml.Node, path string, depth int) []kv {
	n = deref(n)
	var out, merged []kv
	first := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			if depth > 20 {
				p.errorf(k.Line, path, "merge keys (<<) nested too deeply")
				continue
			}
			src := deref(v)
			var sources []*yaml.Node
			switch src.Kind {
			case yaml.MappingNode:
				sources = []*yaml.Node{src}
			case yaml.SequenceNode:
				for _, s := range src.Content {
					sources = append(sources, deref(s))
				}
			}
			for _, s := range sources {
				if s.Kind != yaml.MappingNode {
					p.errorf(k.Line, path, "a merge key (<<) needs a mapping or a list of mappings, got %s", describe(s))
					continue
				}
				merged = append(merged, p.pairsDepth(s, path, depth+1)...)
			}
			if len(sources) == 0 {
				p.errorf(k.Line, path, "a merge key (<<) needs a mapping or a list of mappings, got %s", describe(src))
			}
			continue
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			p.errorf(k.Line, path, "keys must be plain words such as \"name\", got %s", describe(k))
			continue
		}
		if line, dup := first[k.Value]; dup {
			if line < 0 {
				p.errorf(k.Line, join(path, k.Value), "duplicate key")
			} else {
				p.errorf(k.Line, join(path, k.Value), "duplicate key (first defined at line %d)", line)
			}
			continue
		}
		first[k.Value] = k.Line
		out = append(out, kv{key: k.Value, line: k.Line, val: v})
	}
	for _, m := range merged {
		if _, ok := first[m.key]; !ok {
			first[m.key] = m.line
			out = append(out, m)
		}
	}
	return out
}

func (p *parser) unknownKey(e kv, path string, known []string) {
	p.errorf(e.line, join(path, e.key), "unknown key (%sknown keys: %s)", meanPrefix(e.key, known), strings.Join(known, ", "))
}

func meanPrefix(key string, known []string) string {
	if c, ok := suggest(key, known); ok {
		return fmt.Sprintf("did you mean %q?; ", c)
	}
	return ""
}

// join appends a key to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// scope decodes one experiment (or the base mapping). Paths inside it are
// relative ("train.k"); errors prefix them with prefix ("experiments[1]").
// lines records, for each relative path set by the file, the line of its key
// and whether base: set it.
type scope struct {
	p      *parser
	prefix string
	lines  map[string]where
	isBase bool
	// deferred holds the nodes of the family sections (model, train,
	// evaluate.every_epoch, evaluate.final) by relative path.
	deferred map[string]kv
}

func (s *scope) full(rel string) string {
	if rel == "" {
		return s.prefix
	}
	if s.prefix == "" {
		return rel
	}
	if strings.HasPrefix(rel, "[") {
		return s.prefix + rel
	}
	return s.prefix + "." + rel
}

// where is the line of a key and whether the base: mapping set it (an
// experiment that sets the key itself overrides it).
type where struct {
	line int
	base bool
}

// set records that the scope's document set rel on line.
func (s *scope) set(rel string, line int) {
	s.lines[rel] = where{line: line, base: s.isBase}
}

// whereOf returns where rel (or its nearest enclosing key) was set.
func (s *scope) whereOf(rel string) where {
	for {
		if w, ok := s.lines[rel]; ok {
			return w
		}
		if rel == "" {
			return where{}
		}
		i := strings.LastIndexAny(rel, ".[")
		if i < 0 {
			rel = ""
		} else {
			rel = rel[:i]
		}
	}
}

// lineOf returns the line where rel (or its nearest enclosing key) was set.
func (s *scope) lineOf(rel string) int { return s.whereOf(rel).line }

// written is the full path of rel as the file wrote it: under base when
// base: set it (or its nearest enclosing key) and the experiment did not,
// so that a value is reported where it was written, as a type error is.
func (s *scope) written(rel string) string {
	if !s.isBase && s.whereOf(rel).base {
		return join("base", rel)
	}
	return s.full(rel)
}

func (s *scope) errorf(line int, rel, format string, args ...any) {
	s.p.errorf(line, s.full(rel), format, args...)
}

// errorAt reports a problem of the value at rel alone, on the line where
// it was written and under the path where it was written (base.train.k
// for a value that base: set).
func (s *scope) errorAt(rel, format string, args ...any) {
	s.p.errorf(s.lineOf(rel), s.written(rel), format, args...)
}

// warnAt is errorAt for a warning.
func (s *scope) warnAt(rel, format string, args ...any) {
	s.p.warnf(s.lineOf(rel), s.written(rel), format, args...)
}

// field is the decoding metadata of one struct field.
type field struct {
	key    string
	index  []int  // path of struct field indices (through inline structs)
	want   string // what the value should be, for messages
	intStr bool   // a string field that also accepts an integer (schedule: 2008)
}

type fieldSet struct {
	list  []field
	byKey map[string]field
	keys  []string
}

var fieldCache sync.Map // reflect.Type → *fieldSet

// fieldsOf returns the yaml keys of a struct type with their metadata.
// Embedded structs tagged `yaml:",inline"` contribute their keys in place.
func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{byKey: map[string]field{}}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			key, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			index := append(append([]int(nil), prefix...), i)
			if key == "" && opts == "inline" && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, index)
				continue
			}
			if key == "" || key == "-" || !sf.IsExported() {
				continue
			}
			f := field{key: key, index: index, want: sf.Tag.Get("want"), intStr: sf.Tag.Get("cfg") == "intstr"}
			fs.list = append(fs.list, f)
			fs.byKey[key] = f
			fs.keys = append(fs.keys, key)
		}
	}
	walk(t, nil)
	fieldCache.Store(t, fs)
	return fs
}

var (
	experimentType = reflect.TypeOf(Experiment{})
	evaluateType   = reflect.TypeOf(Evaluate{})
)

// deferredKeys are the keys whose decoding needs the experiment's model
// family; mapping records their nodes (by relative path) for
// familySections.
var deferredKeys = map[reflect.Type]map[string]bool{
	experimentType: {"model": true, "train": true},
	evaluateType:   {"every_epoch": true, "final": true},
}

// mapping decodes a mapping node onto the struct rv, key by key: keys the
// node does not mention keep their current value (so decoding onto a copy of
// the base merges recursively).
func (s *scope) mapping(n *yaml.Node, rv reflect.Value, rel string) {
	s.section(n, rv, rel, sectionOpts{})
}

// sectionOpts adjust how section decodes a mapping.
type sectionOpts struct {
	skip   string // a key handled by the caller (model's "type")
	family string // the model family whose settings these are, for messages
}

// section decodes a mapping node onto the struct rv. Keys the struct does
// not have are errors, except the old keys the struct accepts through
// family.Legacy (with their old default value only).
func (s *scope) section(n *yaml.Node, rv reflect.Value, rel string, o sectionOpts) {
	fs := fieldsOf(rv.Type())
	deferred := deferredKeys[rv.Type()]
	var legacy map[string]any
	if l, ok := rv.Addr().Interface().(family.Legacy); ok {
		legacy = l.Legacy()
	}
	for _, e := range s.p.pairs(n, s.full(rel)) {
		if o.skip != "" && e.key == o.skip {
			continue
		}
		if deferred[e.key] {
			s.deferred[join(rel, e.key)] = e
			continue
		}
		f, ok := fs.byKey[e.key]
		if !ok {
			if old, isLegacy := legacy[e.key]; isLegacy {
				s.legacyKey(e, old, join(rel, e.key), o.family)
				continue
			}
			known := fs.keys
			if o.skip != "" {
				known = append([]string{o.skip}, known...)
			}
			if rv.Type() == experimentType && !s.isBase {
				// An experiment's grid: is expanded before decoding; a
				// misspelt one reaches here.
				known = append(slices.Clip(known), gridKey)
			}
			s.p.unknownKey(e, s.full(rel), known)
			continue
		}
		if s.isBase && rel == "" && e.key == "name" {
			s.errorf(e.line, "name", "base cannot set name (each experiment needs its own)")
			continue
		}
		s.value(e.val, rv.FieldByIndex(f.index), f, join(rel, e.key), e.line)
	}
}

// legacyKey accepts a key of an older config format that the family does
// not use, if it holds the value it had by default then.
func (s *scope) legacyKey(e kv, old any, rel, fam string) {
	v := reflect.New(reflect.TypeOf(old)).Elem()
	v.Set(reflect.ValueOf(old))
	before := len(s.p.errs)
	want := ""
	if v.Kind() == reflect.Slice {
		want = "a list (" + showOld(old) + " in older configs)"
	}
	s.value(e.val, v, field{want: want}, rel, e.line)
	if len(s.p.errs) > before || reflect.DeepEqual(v.Interface(), old) {
		return
	}
	s.errorf(e.line, rel, "not used by model type %s (configs of logz format 1 carried it for every model type, as %s; remove it)", fam, showOld(old))
}

// showOld renders a legacy default for a message.
func showOld(v any) string {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	n.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&n)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(string(b))
}

// value decodes node n into rv, recording line as where rel was set.
func (s *scope) value(n *yaml.Node, rv reflect.Value, f field, rel string, line int) {
	n = deref(n)
	if rel != "" {
		s.set(rel, line)
	}
	want := f.want
	switch {
	case rv.Kind() == reflect.Struct:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
			return // "train:" with nothing under it: nothing overridden
		}
		if n.Kind != yaml.MappingNode {
			if want == "" {
				want = "a mapping (" + strings.Join(fieldsOf(rv.Type()).keys, ", ") + ")"
			}
			s.errorf(n.Line, rel, "expected %s, got %s", want, describe(n))
			return
		}
		s.mapping(n, rv, rel)
	case rv.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			s.errorf(n.Line, rel, "expected %s, got %s", want, describe(n))
			return
		}
		out := reflect.MakeSlice(rv.Type(), 0, len(n.Content))
		ok := true
		for i, item := range n.Content {
			irel := fmt.Sprintf("%s[%d]", rel, i)
			s.set(irel, deref(item).Line)
			elem := reflect.New(rv.Type().Elem()).Elem()
			want := "a string"
			if elem.Kind() == reflect.Int {
				want = "an integer"
			}
			ok = s.scalar(item, elem, field{want: want}, irel) && ok
			out = reflect.Append(out, elem)
		}
		// A list with a bad entry keeps the old value.
		if ok {
			if out.Len() == 0 {
				out = reflect.Zero(rv.Type()) // [] and an absent list both mean nil
			}
			rv.Set(out)
		}
	default:
		s.scalar(n, rv, f, rel)
	}
}

// scalar decodes a scalar node into a string, bool, int, uint64 or float64
// value. It reports a problem and returns false if the node does not hold
// a value of that type.
func (s *scope) scalar(n *yaml.Node, rv reflect.Value, f field, rel string) bool {
	n = deref(n)
	want := f.want
	if want == "" {
		want = map[reflect.Kind]string{
			reflect.String: "a string", reflect.Bool: "true or false", reflect.Int: "an integer",
			reflect.Uint64: "a non-negative integer", reflect.Float64: "a number",
		}[rv.Kind()]
	}
	bad := func(extra string) bool {
		if extra == "" {
			extra = quotedHint(n, rv, f)
		}
		s.errorf(n.Line, rel, "expected %s, got %s%s", want, describe(n), extra)
		return false
	}
	if n.Kind != yaml.ScalarNode {
		return bad("")
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Uint64, reflect.Float64:
		if hint, ok := leadingZero(n); ok {
			return bad(hint)
		}
	}
	tag := n.ShortTag()
	switch rv.Kind() {
	case reflect.String:
		switch {
		case tag == "!!str":
			rv.SetString(n.Value)
			return true
		case tag == "!!int" && f.intStr:
			rv.SetString(n.Value)
			return true
		case tag == "!!int" || tag == "!!float" || tag == "!!bool" || tag == "!!timestamp":
			return bad(fmt.Sprintf(" (write \"%s\" in quotes if you mean the text)", n.Value))
		}
		return bad("")
	case reflect.Bool:
		if tag != "!!bool" {
			return bad("")
		}
		var b bool
		if err := n.Decode(&b); err != nil {
			return bad("")
		}
		rv.SetBool(b)
		return true
	case reflect.Int, reflect.Uint64:
		var i int64
		var u uint64
		neg := false
		switch tag {
		case "!!int":
			if err := n.Decode(&i); err == nil {
				neg = i < 0
				u = uint64(i)
			} else if err := n.Decode(&u); err != nil {
				return bad(" (out of range)")
			}
		case "!!float":
			var x float64
			if err := n.Decode(&x); err != nil || x != math.Trunc(x) || math.IsInf(x, 0) || math.Abs(x) > 1<<53 {
				return bad("")
			}
			i, u, neg = int64(x), uint64(math.Abs(x)), x < 0
		default:
			return bad("")
		}
		if rv.Kind() == reflect.Uint64 {
			if neg {
				return bad("")
			}
			rv.SetUint(u)
			return true
		}
		if !neg && u > math.MaxInt32 {
			return bad(" (too large)")
		}
		if neg && i < math.MinInt32 {
			return bad(" (too small)")
		}
		rv.SetInt(i)
		return true
	case reflect.Float64:
		if tag != "!!int" && tag != "!!float" {
			return bad("")
		}
		var x float64
		if err := n.Decode(&x); err != nil {
			return bad("")
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad(" (must be finite)")
		}
		rv.SetFloat(x)
		return true
	}
	return bad("")
}

// leadingZero reports whether the unquoted scalar n is an integer written
// with a leading zero (010, -07, +00, 0_10), and returns the hint that
// says what to write. YAML 1.1, which yaml.v3 follows here, reads 010 as
// octal (8) and 09 as the decimal 9, so such a number is refused rather
// than read one way or the other; an explicit base (0o10, 0x8, 0b1000)
// says what it means and is read as written.
func leadingZero(n *yaml.Node) (string, bool) {
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return "", false
	}
	sign, digits := "", strings.ReplaceAll(n.Value, "_", "")
	if digits != "" && (digits[0] == '-' || digits[0] == '+') {
		sign, digits = digits[:1], digits[1:]
	}
	if len(digits) < 2 || digits[0] != '0' || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	if sign == "+" {
		sign = ""
	}
	decimal := sign + strings.TrimLeft(digits, "0")
	if decimal == sign {
		decimal = "0"
	}
	if strings.Trim(digits, "01234567") != "" || decimal == "0" {
		return fmt.Sprintf(" (leading zero: write %s)", decimal), true
	}
	return fmt.Sprintf(" (leading zero, which YAML reads as octal: write %s, or %s0o%s if you mean octal)",
		decimal, sign, strings.TrimLeft(digits, "0")), true
}

// quotedHint explains a quoted scalar ("true", '3') where a bool or a
// number is expected, when the same text without quotes would do: YAML
// reads a quoted value as a string.
func quotedHint(n *yaml.Node, rv reflect.Value, f field) string {
	if n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
		return ""
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Uint64, reflect.Float64:
	default:
		return ""
	}
	plain := &yaml.Node{Kind: yaml.ScalarNode, Value: n.Value, Line: n.Line}
	if plain.ShortTag() == "!!str" {
		return "" // a word without quotes too
	}
	scratch := &scope{p: &parser{}, lines: map[string]where{}}
	if !scratch.scalar(plain, reflect.New(rv.Type()).Elem(), f, "") {
		return ""
	}
	return fmt.Sprintf(" (the quotes make it a string; write %s without quotes)", n.Value)
}

// describe renders a node for "got ..." in messages.
func describe(n *yaml.Node) string {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "an empty value"
		case "!!str":
			return strconv.Quote(n.Value)
		case "!!int", "!!float", "!!bool":
			return n.Value
		case "!!timestamp":
			return n.Value + " (a date)"
		default:
			return fmt.Sprintf("%s (tagged %s)", strconv.Quote(n.Value), n.Tag)
		}
	}
	return "nothing"
}
