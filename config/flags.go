package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/logz-ml/logz/family"
	"gopkg.in/yaml.v3"
)

// FlagError is a problem with a command-line value for estimator settings.
type FlagError struct{ Msg string }

func (e *FlagError) Error() string { return e.Msg }

// SettingsFlags lists the flag names the settings' fields declare with
// `flag:"name"` tags.
func SettingsFlags(s family.Settings) []string {
	var out []string
	for _, f := range fieldsOf(reflect.TypeOf(s).Elem()).list {
		if name := flagOf(reflect.TypeOf(s).Elem(), f); name != "" {
			out = append(out, name)
		}
	}
	return out
}

func flagOf(t reflect.Type, f field) string {
	return t.FieldByIndex(f.index).Tag.Get("flag")
}

// ApplyFlags sets the fields of s tagged with a flag in values to that
// value (decoded like the same key in a config file), then checks s. what
// names the estimator in messages. Problems are reported by flag name:
//
//	--chains wants an integer ≥ 2, got 1 (ais: runs)
func ApplyFlags(s family.Settings, what string, values map[string]string) error {
	t := reflect.TypeOf(s).Elem()
	rv := reflect.ValueOf(s).Elem()
	p := &parser{file: "flags"}
	sc := &scope{p: p, lines: map[string]where{}}
	byKey := map[string]string{}
	for _, f := range fieldsOf(t).list {
		name := flagOf(t, f)
		if name == "" {
			continue
		}
		byKey[f.key] = name
		v, ok := values[name]
		if !ok {
			continue
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(v), &n); err != nil || len(n.Content) != 1 {
			n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
		} else {
			n = *n.Content[0]
		}
		sc.scalar(&n, rv.FieldByIndex(f.index), f, f.key)
	}
	if len(p.errs) == 0 {
		s.Check(section{v: &validator{scope: sc}, prefix: ""})
	}
	if len(p.errs) == 0 {
		return nil
	}
	var msgs []string
	for _, e := range p.errs {
		key, _, _ := strings.Cut(e.Path, ".")
		msg := e.Msg
		if name, ok := byKey[key]; ok && e.Path == key {
			msg = "--" + name + " wants " + strings.TrimPrefix(msg, "expected ")
			msgs = append(msgs, fmt.Sprintf("%s (%s: %s)", msg, what, key))
			continue
		}
		if e.Path != "" {
			msg = e.Path + ": " + msg
		}
		msgs = append(msgs, what+": "+msg)
	}
	return &FlagError{Msg: strings.Join(msgs, "; ")}
}

// CheckList runs the checks of the entries of an estimator list that depend
// on the other entries (family.ListChecker: csl's steps 0 matched to the
// list's raise or ais), as a config's evaluate lists are checked when read.
func CheckList(list []Estimator) error {
	p := &parser{file: "flags"}
	sc := &scope{p: p, lines: map[string]where{}}
	for _, e := range list {
		if lc, ok := e.Settings.(family.ListChecker); ok {
			lc.CheckList(section{v: &validator{scope: sc}, prefix: e.Name}, list)
		}
	}
	if len(p.errs) == 0 {
		return nil
	}
	var msgs []string
	for _, e := range p.errs {
		msgs = append(msgs, e.Path+": "+e.Msg)
	}
	return &FlagError{Msg: strings.Join(msgs, "; ")}
}
