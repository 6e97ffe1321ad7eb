package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/family"
)

const modelsUsage = `Usage: logz models [--json | --markdown]
       logz models FAMILY

Lists the registered model families: for each, what it is, its trainers
(the values of train.method), its model: and train: settings with their
defaults, its estimators with their settings and defaults (and the
'logz eval' flags that set them), and its default evaluate lists. The
"Model families" section of docs/reference.md is this command's
--markdown output. With a FAMILY (rbm, dbn, …), every key of its model:,
train: and estimator settings, one a line, with its default, its meaning
and what a value must be (as 'logz help config FAMILY').

Flags:
`

// familyInfo is what `logz models --json` prints of a family.
type familyInfo struct {
	Name       string           `json:"name"`
	Doc        string           `json:"doc"`
	Trainers   []trainerInfo    `json:"trainers"`
	Model      []config.Setting `json:"model"`
	Train      []config.Setting `json:"train"`
	Estimators []estimatorInfo  `json:"estimators"`
	EveryEpoch []string         `json:"every_epoch"`
	Final      []string         `json:"final"`
}

type trainerInfo struct {
	Method string `json:"method"`
	Doc    string `json:"doc"`
}

type estimatorInfo struct {
	Name     string           `json:"name"`
	Doc      string           `json:"doc"`
	Settings []config.Setting `json:"settings"`
	// Leans is which way the estimator's numbers err ("log Z low, log p
	// high"), "" for exact enumeration and diagnostics.
	Leans string `json:"leans,omitempty"`
}

func describeFamilies() []familyInfo {
	var out []familyInfo
	for _, f := range family.All() {
		fi := familyInfo{
			Name: f.Name, Doc: f.Doc,
			Model: config.Describe(f.Model()), Train: config.Describe(f.Train()),
			EveryEpoch: entryNames(f.EveryEpoch()), Final: entryNames(f.Final()),
		}
		for _, t := range f.Trainers {
			fi.Trainers = append(fi.Trainers, trainerInfo{t.Method, t.Doc})
		}
		for _, e := range f.Estimators {
			fi.Estimators = append(fi.Estimators, estimatorInfo{Name: e.Name, Doc: e.Doc, Settings: config.Describe(e.New()), Leans: e.Leans.Summary()})
		}
		out = append(out, fi)
	}
	return out
}

func entryNames(l []family.Configured) []string {
	out := make([]string, len(l))
	for i, c := range l {
		out[i] = c.Name
	}
	return out
}

func cmdModels(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the registry as JSON")
	asMarkdown := fs.Bool("markdown", false, "print the registry as the Markdown of docs/reference.md's Model families section")
	fs.Usage = func() { fmt.Fprint(fs.Output(), modelsUsage); printFlags(fs) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(pos) == 1 && !*asJSON && !*asMarkdown {
		if _, err := family.Lookup(pos[0]); err != nil {
			return usageError{fmt.Sprintf("models: %v", err)}
		}
		return helpConfig(pos, stdout)
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("models: unexpected argument %q (see 'logz models --help')", pos[0])}
	}
	if *asJSON && *asMarkdown {
		return usageError{"models: --json and --markdown exclude each other"}
	}
	fams := describeFamilies()
	switch {
	case *asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"families": fams})
	case *asMarkdown:
		_, err := io.WriteString(stdout, modelsMarkdown(fams))
		return err
	}
	_, err = io.WriteString(stdout, modelsText(fams))
	return err
}

func settingsLine(ss []config.Setting) string {
	if len(ss) == 0 {
		return "(no settings)"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.Key + ": " + s.Default
	}
	return strings.Join(parts, ", ")
}

func modelsText(fams []familyInfo) string {
	var b strings.Builder
	for i, f := range fams {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s — %s\n", f.Name, f.Doc)
		b.WriteString("  trainers (train.method):\n")
		for _, t := range f.Trainers {
			fmt.Fprintf(&b, "    %-10s %s\n", t.Method, t.Doc)
		}
		fmt.Fprintf(&b, "  model: %s\n", settingsLine(f.Model))
		fmt.Fprintf(&b, "  train: %s\n", settingsLine(f.Train))
		b.WriteString("  estimators:\n")
		for _, e := range f.Estimators {
			fmt.Fprintf(&b, "    %-10s %s\n", e.Name, e.Doc)
			if len(e.Settings) > 0 {
				fmt.Fprintf(&b, "    %-10s   {%s}\n", "", settingsLine(e.Settings))
			}
			if e.Leans != "" {
				fmt.Fprintf(&b, "    %-10s   leans: %s\n", "", e.Leans)
			}
		}
		fmt.Fprintf(&b, "  default lists: every_epoch [%s], final [%s]\n", strings.Join(f.EveryEpoch, ", "), strings.Join(f.Final, ", "))
	}
	return b.String()
}

// mdCell escapes a table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func settingsTable(b *strings.Builder, section string, ss []config.Setting) {
	for _, s := range ss {
		flag := ""
		if s.Flag != "" {
			flag = " (`--" + s.Flag + "`)"
		}
		fmt.Fprintf(b, "| %s | `%s` | `%s` | %s | %s%s |\n", section, s.Key, mdCell(s.Default), mdCell(s.Doc), mdCell(s.Want), flag)
	}
}

func modelsMarkdown(fams []familyInfo) string {
	var b strings.Builder
	b.WriteString("Generated by `logz models --markdown`; a test keeps it equal to the registry.\n\n")
	b.WriteString("| family | what it is | trainers (`train.method`) | estimators | default lists (every_epoch; final) |\n|---|---|---|---|---|\n")
	for _, f := range fams {
		var tr, es []string
		for _, t := range f.Trainers {
			tr = append(tr, "`"+t.Method+"`")
		}
		for _, e := range f.Estimators {
			es = append(es, "`"+e.Name+"`")
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s; %s |\n", f.Name, mdCell(f.Doc), strings.Join(tr, ", "), strings.Join(es, ", "),
			strings.Join(f.EveryEpoch, ", "), strings.Join(f.Final, ", "))
	}
	for _, f := range fams {
		fmt.Fprintf(&b, "\n#### `%s`\n\n%s.\n\n", f.Name, f.Doc)
		for _, t := range f.Trainers {
			fmt.Fprintf(&b, "- `train.method: %s` — %s\n", t.Method, t.Doc)
		}
		b.WriteString("\n| section | key | default | meaning | expected |\n|---|---|---|---|---|\n")
		settingsTable(&b, "model", f.Model)
		settingsTable(&b, "train", f.Train)
		b.WriteString("\n| estimator | what it is | leans | settings and defaults |\n|---|---|---|---|\n")
		for _, e := range f.Estimators {
			var parts []string
			for _, s := range e.Settings {
				p := "`" + s.Key + ": " + s.Default + "`"
				if s.Flag != "" {
					p += " (`--" + s.Flag + "`)"
				}
				parts = append(parts, mdCell(p))
			}
			set := strings.Join(parts, ", ")
			if set == "" {
				set = "—"
			}
			leans := e.Leans
			if leans == "" {
				leans = "—"
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Name, mdCell(e.Doc), leans, set)
		}
	}
	return b.String()
}
