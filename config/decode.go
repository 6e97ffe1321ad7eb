package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// parser collects the problems of one file.
type parser struct {
	file string
	opt  Options
	errs ErrorList
}

func (p *parser) errorf(line int, path, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return p.errs.sorted()
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

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
	msg := err.Error()
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		p.errorf(0, "", "invalid YAML: %s", strings.TrimPrefix(msg, "yaml: "))
		return
	}
	line, _ := strconv.Atoi(m[1])
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
	hint := ""
	if strings.Contains(m[2], "mapping values are not allowed") {
		hint = " (a value that contains \": \" or ends with \":\" must be quoted)"
	}
	p.errorf(line, "", "invalid YAML: %s%s", m[2], hint)
}

var topKeys = []string{"name", "description", "seed", "base", "experiments"}

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
	top := &scope{p: p, lines: map[string]int{}}
	var baseNode, expNode *yaml.Node
	var baseLine, expLine int
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
	baseLines := map[string]int{}
	if baseNode != nil {
		bs := &scope{p: p, prefix: "base", lines: baseLines, isBase: true}
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
	seen := map[string]named{} // lower-cased name → first experiment with it
	for i, item := range seq.Content {
		item = deref(item)
		prefix := fmt.Sprintf("experiments[%d]", i)
		if item.Kind != yaml.MappingNode {
			p.errorf(item.Line, prefix, "expected a mapping (an experiment with name, data, model, train, evaluate), got %s", describe(item))
			continue
		}
		e := base.Clone()
		lines := make(map[string]int, len(baseLines)+32)
		for k, v := range baseLines {
			lines[k] = v
		}
		lines[""] = item.Line
		s := &scope{p: p, prefix: prefix, lines: lines}
		s.mapping(item, reflect.ValueOf(&e).Elem(), "")
		if e.Seed == 0 {
			e.Seed = DeriveSeed(f.Seed, uint64(i))
		}
		if e.Data.BinarizeSeed == 0 {
			// From the file seed, not the experiment's: every experiment of a
			// file sees the same binarised images, so one table compares
			// models on one test set.
			e.Data.BinarizeSeed = DeriveSeed(f.Seed, binarizeLabel)
		}
		if e.Train.Method == "pcd" && e.Train.Chains == 0 {
			e.Train.Chains = e.Train.BatchSize
		}
		v := &validator{scope: s, opt: p.opt}
		v.experiment(&e)
		if e.Name != "" {
			low := strings.ToLower(e.Name)
			if prev, dup := seen[low]; dup {
				if prev.name == e.Name {
					s.errorAt("name", "duplicate experiment name %q (also experiments[%d]); names must be unique", e.Name, prev.index)
				} else {
					s.errorAt("name", "experiment name %q differs from experiments[%d] %q only in case; names become directory names and must differ ignoring case", e.Name, prev.index, prev.name)
				}
			} else {
				seen[low] = named{i, e.Name}
			}
		}
		f.Experiments = append(f.Experiments, e)
	}
	return f
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
			p.errorf(k.Line, join(path, k.Value), "duplicate key (first defined at line %d)", line)
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
// lines records, for each relative path set by the file, the line of its key.
type scope struct {
	p      *parser
	prefix string
	lines  map[string]int
	isBase bool
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

// lineOf returns the line where rel (or its nearest enclosing key) was set.
func (s *scope) lineOf(rel string) int {
	for {
		if l, ok := s.lines[rel]; ok {
			return l
		}
		if rel == "" {
			return 0
		}
		i := strings.LastIndexAny(rel, ".[")
		if i < 0 {
			rel = ""
		} else {
			rel = rel[:i]
		}
	}
}

func (s *scope) errorf(line int, rel, format string, args ...any) {
	s.p.errorf(line, s.full(rel), format, args...)
}

// errorAt reports a problem at rel, on the line where rel was set.
func (s *scope) errorAt(rel, format string, args ...any) {
	s.p.errorf(s.lineOf(rel), s.full(rel), format, args...)
}

// field is the decoding metadata of one struct field.
type field struct {
	key    string
	index  int
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
func fieldsOf(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{byKey: map[string]field{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		key, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
		if key == "" || key == "-" || !sf.IsExported() {
			continue
		}
		f := field{key: key, index: i, want: sf.Tag.Get("want"), intStr: sf.Tag.Get("cfg") == "intstr"}
		fs.list = append(fs.list, f)
		fs.byKey[key] = f
		fs.keys = append(fs.keys, key)
	}
	fieldCache.Store(t, fs)
	return fs
}

var estimatorType = reflect.TypeOf(Estimator{})

// mapping decodes a mapping node onto the struct rv, key by key: keys the
// node does not mention keep their current value (so decoding onto a copy of
// the base merges recursively).
func (s *scope) mapping(n *yaml.Node, rv reflect.Value, rel string) {
	fs := fieldsOf(rv.Type())
	for _, e := range s.p.pairs(n, s.full(rel)) {
		f, ok := fs.byKey[e.key]
		if !ok {
			s.p.unknownKey(e, s.full(rel), fs.keys)
			continue
		}
		if s.isBase && rel == "" && e.key == "name" {
			s.errorf(e.line, "name", "base cannot set name (each experiment needs its own)")
			continue
		}
		s.value(e.val, rv.Field(f.index), f, join(rel, e.key), e.line)
	}
}

// value decodes node n into rv, recording line as where rel was set.
func (s *scope) value(n *yaml.Node, rv reflect.Value, f field, rel string, line int) {
	n = deref(n)
	if rel != "" {
		s.lines[rel] = line
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
			s.lines[irel] = deref(item).Line
			elem := reflect.New(rv.Type().Elem()).Elem()
			var good bool
			if rv.Type().Elem() == estimatorType {
				good = s.estimator(item, elem, irel)
			} else {
				good = s.scalar(item, elem, field{want: "a string"}, irel)
			}
			ok = ok && good
			out = reflect.Append(out, elem)
		}
		// A list with a bad string keeps the old value; a list of
		// estimators is kept with its bad entries partly decoded (an
		// unknown name leaves a zero entry, which validation skips), so
		// that validation still reports the entries' other problems.
		if ok || rv.Type().Elem() == estimatorType {
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
		s.errorf(n.Line, rel, "expected %s, got %s%s", want, describe(n), extra)
		return false
	}
	if n.Kind != yaml.ScalarNode {
		return bad("")
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

// estimator decodes one evaluate list entry: a mapping with a name, or a
// bare name. Settings the named estimator does not have are errors; the ones
// it has and the entry does not set take the estimator's defaults.
func (s *scope) estimator(n *yaml.Node, rv reflect.Value, rel string) bool {
	n = deref(n)
	names := estimatorNames()
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
			s.lines[join(rel, "name")] = e.line
			if !s.scalar(e.val, reflect.ValueOf(&name).Elem(), field{want: "an estimator name (" + strings.Join(names, ", ") + ")"}, join(rel, "name")) {
				return false
			}
		}
		if !found {
			s.errorf(n.Line, rel, "missing required key \"name\" (one of %s)", strings.Join(names, ", "))
			return false
		}
	default:
		s.errorf(n.Line, rel, "expected an estimator ({name: ais, runs: 100, ...} or a bare name such as exact), got %s", describe(n))
		return false
	}
	kind, ok := lookupEstimator(name)
	if !ok {
		s.errorf(nameLine, join(rel, "name"), "unknown estimator %q%s", name, knownHint(name, names))
		return false
	}
	est := kind.Defaults
	est.Name = name
	ev := reflect.ValueOf(&est).Elem()
	fs := fieldsOf(estimatorType)
	good := true
	for _, e := range rest {
		f, known := fs.byKey[e.key]
		applies := false
		for _, k := range kind.Keys {
			applies = applies || k == e.key
		}
		switch {
		case !known:
			s.p.unknownKey(e, s.full(rel), append([]string{"name"}, kind.Keys...))
			good = false
		case !applies:
			settings := "it has no settings"
			if len(kind.Keys) > 0 {
				settings = "its settings: " + strings.Join(kind.Keys, ", ")
			}
			s.errorf(e.line, join(rel, e.key), "not a setting of estimator %q (%s)", name, settings)
			good = false
		default:
			s.lines[join(rel, e.key)] = e.line
			if !s.scalar(e.val, ev.Field(f.index), f, join(rel, e.key)) {
				good = false
			}
		}
	}
	rv.Set(ev)
	return good
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
