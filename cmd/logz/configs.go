package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/configs"
)

const configsUsage = `Usage: logz configs              list the configs shipped with logz
       logz configs show NAME    print one, to start a config of your own from

Every config of the clone's configs/ folder is built into the binary:
'logz run NAME' runs it when no file NAME exists (e.g. logz run
quickstart-sbn, logz run repro-raise-table1), from any folder. The list
gives each one's name, model families, the data it reads and how long it
takes; 'data: mnist' needs MNIST where logz looks for it (LOGZ_DATA_DIR,
else ./data/mnist when that folder exists, else ~/.cache/logz/mnist,
where 'logz data get mnist' puts it).
`

func cmdConfigs(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("configs", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), configsUsage) }
	pos, err := parseFlags(fs, args, stdout)
	if err != nil {
		return err
	}
	switch {
	case len(pos) == 0:
		return listConfigs(stdout)
	case pos[0] == "show" && len(pos) == 2:
		_, data, ok := configs.Lookup(pos[1])
		if !ok {
			return usageError{fmt.Sprintf("configs show: no shipped config %q%s", pos[1], knownConfigs(pos[1]))}
		}
		_, err := stdout.Write(data)
		return err
	case pos[0] == "show":
		return usageError{"configs show: give one config name (see 'logz configs')"}
	}
	return usageError{fmt.Sprintf("configs: unexpected argument %q (see 'logz configs --help')", pos[0])}
}

// listConfigs prints one paragraph per shipped config: its name, families,
// data and time, then its description.
func listConfigs(w io.Writer) error {
	cat, err := configs.Catalog()
	if err != nil {
		return err
	}
	for _, e := range cat {
		line := fmt.Sprintf("%s  [%s; data: %s]", e.Name, strings.Join(e.Families, ", "), strings.Join(e.Data, ", "))
		if e.Time != "" {
			line += "  " + e.Time
		}
		fmt.Fprintf(w, "%s\n    %s\n", line, e.Description)
	}
	fmt.Fprintln(w, "\nRun one with 'logz run NAME'; 'logz configs show NAME' prints it.")
	return nil
}

// knownConfigs is a did-you-mean hint among the shipped configs.
func knownConfigs(name string) string {
	if hint := config.DidYouMean(strings.TrimSuffix(name, ".yaml"), configs.Names()); hint != "" {
		return strings.TrimSuffix(hint, ")") + "; 'logz configs' lists them)"
	}
	return " ('logz configs' lists them)"
}
