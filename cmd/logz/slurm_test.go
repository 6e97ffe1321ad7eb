package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// fakeSbatch is an sbatch for tests: it logs its arguments, prints the
// next job id and runs the script's array tasks (the --array option, else
// the script's #SBATCH --array) at once, in order, with
// SLURM_ARRAY_TASK_ID set and the output in the script's --output file.
// Jobs run in the order they are submitted, which satisfies the
// dependencies of `logz slurm`; the test checks those from the log.
const fakeSbatch = `#!/bin/bash
log="$FAKE_SBATCH_LOG"
echo "$*" >> "$log"
id=$(wc -l < "$log")
script="${@: -1}"
array=""
for a in "$@"; do case "$a" in --array=*) array="${a#--array=}";; esac; done
[ -n "$array" ] || array=$(sed -n 's/^#SBATCH --array=//p' "$script")
out=$(sed -n 's/^#SBATCH --output=//p' "$script")
tasks=""
for r in ${array//,/ }; do
  case "$r" in *-*) tasks="$tasks $(seq "${r%-*}" "${r#*-}")";; *) tasks="$tasks $r";; esac
done
if [ -z "$array" ]; then
  bash "$script" > "$out" 2>&1 || echo "job $id failed" >> "$log.failed"
else
  for k in $tasks; do
    SLURM_ARRAY_TASK_ID=$k bash "$script" > "${out//%a/$k}" 2>&1 || echo "job ${id}_$k failed" >> "$log.failed"
  done
fi
echo "$id;cluster"
`

// TestSlurmSubmitsArrays runs `logz slurm` against the fake sbatch: the
// scripts are written, the evaluation arrays depend on their experiment's
// training task and the merge on every evaluation array (with
// --kill-on-invalid-dep=yes), and the merged results are those of `logz
// run` in one process. Then a lost shard is found by `logz status`, which
// prints the sbatch --array command that resubmits it; resubmitted, the
// merge is complete again.
func TestSlurmSubmitsArrays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := logzBinary(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin")
	os.MkdirAll(fake, 0o755)
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte(fakeSbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	log := filepath.Join(dir, "sbatch.log")
	t.Setenv("FAKE_SBATCH_LOG", log)
	cfg := writeConfig(t, dir, strings.Replace(tinyConfig, "  - name: pcd", "  - name: cd2\n    train: {method: cd, learning_rate: 0.03}\n  - name: pcd", 1))
	whole := filepath.Join(dir, "whole")
	if _, _, err := runLogz(t, "run", cfg, "--out", whole); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sharded")
	stdout, _, err := runLogz(t, "slurm", cfg, "--shards", "2", "--out", out, "--logz", bin, "--sbatch-args", "--time=5 -c 1")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(log + ".failed"); err == nil {
		t.Fatalf("jobs failed: %s", b)
	}
	if !strings.Contains(stdout, "training array 1 (2 tasks), evaluation arrays 2, 3, 4 (2 tasks each), merge 5") {
		t.Errorf("stdout: %s", stdout)
	}
	sd := filepath.Join(out, "slurm")
	b, _ := os.ReadFile(log)
	want := []string{
		"--parsable " + filepath.Join(sd, "train.sbatch"),
		"--parsable --dependency=afterok:1_0 --kill-on-invalid-dep=yes " + filepath.Join(sd, "eval-0-cd.sbatch"),
		"--parsable --dependency=afterok:1_1 --kill-on-invalid-dep=yes " + filepath.Join(sd, "eval-1-cd2.sbatch"),
		"--parsable --dependency=afterok:1_0 --kill-on-invalid-dep=yes " + filepath.Join(sd, "eval-2-pcd.sbatch"),
		"--parsable --dependency=afterok:2:3:4 --kill-on-invalid-dep=yes " + filepath.Join(sd, "merge.sbatch"),
	}
	if got := strings.Split(strings.TrimSpace(string(b)), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("sbatch calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	script, _ := os.ReadFile(filepath.Join(sd, "eval-1-cd2.sbatch"))
	for _, line := range []string{"#SBATCH --array=0-1", "#SBATCH --time=5", "#SBATCH -c 1", "--shard env/2 --phase eval --experiment cd2"} {
		if !strings.Contains(string(script), line) {
			t.Errorf("eval script has no %q:\n%s", line, script)
		}
	}
	if !sameRows(stripTimes(t, filepath.Join(out, "results.json")), stripTimes(t, filepath.Join(whole, "results.json"))) {
		t.Error("the merged results differ from the unsharded run's")
	}
	status, _, err := runLogz(t, "status", out)
	if err != nil || !strings.Contains(status, "every part is there and") || !strings.Contains(status, "cd2  trained (4 epochs); evaluation: 2 of 2 shards done") {
		t.Errorf("status: %v\n%s", err, status)
	}

	// A lost shard: status names it and the command that resubmits it.
	os.Remove(filepath.Join(out, "parts", "cd2.eval-1-of-2.json"))
	status, _, _ = runLogz(t, "status", out)
	resubmit := "sbatch --array=1 " + filepath.Join(sd, "eval-1-cd2.sbatch")
	if !strings.Contains(status, "evaluation: 1 of 2 shards done; missing 1") || !strings.Contains(status, resubmit) ||
		!strings.Contains(status, "then merge: sbatch "+filepath.Join(sd, "merge.sbatch")) {
		t.Errorf("status with a lost shard:\n%s", status)
	}
	if _, _, err := runLogz(t, "merge", out); err == nil || !strings.Contains(err.Error(), "cd2's final evaluation: shard 1 of 2 is missing") {
		t.Errorf("merge with a lost shard: %v", err)
	}
	// The printed command, then the merge.
	fields := strings.Fields(resubmit)
	if b, err := exec.Command(fields[0], fields[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", resubmit, err, b)
	}
	if _, _, err := runLogz(t, "merge", out); err != nil {
		t.Fatal(err)
	}
	if !sameRows(stripTimes(t, filepath.Join(out, "results.json")), stripTimes(t, filepath.Join(whole, "results.json"))) {
		t.Error("after resubmitting, the merged results differ from the unsharded run's")
	}
}

// TestSlurmDryRun prints the scripts and the submission and writes nothing.
func TestSlurmDryRun(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	out := filepath.Join(dir, "run")
	stdout, _, err := runLogz(t, "slurm", cfg, "--shards", "4", "--out", out, "--logz", "/opt/logz/bin/logz", "--dry-run", "--sbatch-args", "--partition=short")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"==> " + filepath.Join(out, "slurm", "train.sbatch") + " <==",
		"#SBATCH --array=0-1\n", "#SBATCH --array=0-3\n", "#SBATCH --partition=short\n",
		"exec /opt/logz/bin/logz run " + cfg + " --out " + out + " --shard env/2 --phase train\n",
		"exec /opt/logz/bin/logz merge " + out + "\n",
		"--dependency=afterok:TRAIN_1 --kill-on-invalid-dep=yes",
		"--dependency=afterok:EVAL0:EVAL1 --kill-on-invalid-dep=yes",
	} {
		if !strings.Contains(stdout, s) {
			t.Errorf("dry run has no %q:\n%s", s, stdout)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--dry-run wrote the run folder")
	}
}

// TestSlurmTimeLimitRequeues: with --time-limit, the training script runs
// logz with that limit and, when logz exits with status 3 (stopped at the
// limit, its work saved), requeues its own array task and exits 3; any
// other status is the script's without a requeue. The evaluation scripts
// get no limit. The script is run by bash with a fake logz and scontrol.
func TestSlurmTimeLimitRequeues(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	fake := filepath.Join(dir, "bin")
	os.MkdirAll(fake, 0o755)
	calls := filepath.Join(dir, "calls.log")
	for name, body := range map[string]string{
		"logz":     "echo \"logz $*\" >> \"$CALLS\"\nexit \"$FAKE_RC\"\n",
		"scontrol": "echo \"scontrol $*\" >> \"$CALLS\"\n",
	} {
		if err := os.WriteFile(filepath.Join(fake, name), []byte("#!/bin/bash\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "run")
	stdout, _, err := runLogz(t, "slurm", cfg, "--shards", "2", "--out", out, "--logz", filepath.Join(fake, "logz"), "--dry-run", "--time-limit", "1h50m")
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{}
	name := ""
	for _, line := range strings.SplitAfter(stdout, "\n") {
		if strings.HasPrefix(line, "==> ") {
			name = filepath.Base(strings.TrimSuffix(strings.TrimPrefix(line, "==> "), " <==\n"))
			continue
		}
		scripts[name] += line
	}
	train := scripts["train.sbatch"]
	for _, want := range []string{"#SBATCH --requeue\n", "#SBATCH --open-mode=append\n", "--phase train --time-limit 1h50m0s || rc=$?\n"} {
		if !strings.Contains(train, want) {
			t.Errorf("train.sbatch has no %q:\n%s", want, train)
		}
	}
	if eval := scripts["eval-0-cd.sbatch"]; eval == "" || strings.Contains(eval, "time-limit") || strings.Contains(eval, "requeue") {
		t.Errorf("eval-0-cd.sbatch is missing or limited:\n%s", eval)
	}
	path := filepath.Join(dir, "train.sbatch")
	if err := os.WriteFile(path, []byte(train), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rc      int
		requeue bool
	}{{3, true}, {0, false}, {1, false}, {2, false}} {
		os.Remove(calls)
		cmd := exec.Command("bash", path)
		cmd.Env = append(os.Environ(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"), "CALLS="+calls,
			fmt.Sprintf("FAKE_RC=%d", c.rc), "SLURM_ARRAY_JOB_ID=7", "SLURM_ARRAY_TASK_ID=1")
		b, err := cmd.CombinedOutput()
		rc := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			rc = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("bash %s: %v: %s", path, err, b)
		}
		log, _ := os.ReadFile(calls)
		if rc != c.rc {
			t.Errorf("logz exit %d: the script exited %d\n%s%s", c.rc, rc, b, log)
		}
		if got := strings.Contains(string(log), "scontrol requeue 7_1\n"); got != c.requeue {
			t.Errorf("logz exit %d: requeued %v, want %v:\n%s", c.rc, got, c.requeue, log)
		}
		if !strings.HasPrefix(string(log), "logz run "+cfg+" --out "+out+" --shard env/2 --phase train --time-limit 1h50m0s\n") {
			t.Errorf("logz exit %d: logz ran as\n%s", c.rc, log)
		}
	}
}

// TestSlurmBadFlags: sbatch options logz sets itself, a bad --shards and
// unbalanced quotes are usage errors naming the problem.
func TestSlurmBadFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shards", "0"}, "--shards wants the number of evaluation shards"},
		{[]string{"--shards", "2", "--sbatch-args", "--array=0-3"}, "--array is set by logz slurm itself"},
		{[]string{"--shards", "2", "--sbatch-args", "-d afterok:1"}, "-d is set by logz slurm itself"},
		{[]string{"--shards", "2", "--sbatch-args", "short"}, `"short" is not an sbatch option`},
		{[]string{"--shards", "2", "--sbatch-args", "--comment='a b"}, "unbalanced '"},
		{[]string{"--shards", "2", "--time-limit", "-5m"}, "--time-limit wants a positive duration"},
	} {
		_, _, err := runLogz(t, append([]string{"slurm", cfg, "--dry-run"}, c.args...)...)
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
	lines, err := sbatchLines(`--partition=short -c 2 --comment "two words" --mem=1G`)
	if want := []string{"--partition=short", "-c 2", `--comment "two words"`, "--mem=1G"}; err != nil || !reflect.DeepEqual(lines, want) {
		t.Errorf("sbatchLines: %q, %v; want %q", lines, err, want)
	}
}

// sbatchArgs splits the text after #SBATCH on a line of a batch script
// into arguments as sbatch does (Slurm's src/sbatch/opt.c, _get_argument),
// not as a shell would: blanks separate arguments outside quotes; ' and "
// group, also in mid-word; a backslash escapes the next character, inside
// quotes too; an unquoted # ends the line; an unmatched quote and an
// argument starting with ':' are errors.
func sbatchArgs(line string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, escaped, quote := false, false, rune(0)
	for _, r := range line {
		switch {
		case escaped:
			escaped = false
			cur.WriteRune(r)
		case r == '\\':
			escaped, in = true, true
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		case r == '#':
			return append(args, cur.String()), nil
		case r == ':' && !in:
			return nil, fmt.Errorf("unexpected ':' in [%s]", line)
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unmatched %c in [%s]", quote, line)
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}

// TestSlurmQuoting: what lands on an #SBATCH line reads back, as sbatch
// splits it, as the argument given: a run directory with a blank, a #, a
// quote and a % (doubled: a % of Slurm's file name patterns), options of
// --sbatch-args quoted as one word, a backslash and ':' at a word's start.
// A newline or another control character in --sbatch-args or --out, which
// would end the #SBATCH line, is a usage error naming the flag.
func TestSlurmQuoting(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir, tinyConfig)
	out := filepath.Join(dir, `my dir #1 "x" 100%`)
	stdout, _, err := runLogz(t, "slurm", cfg, "--shards", "2", "--out", out, "--logz", "/opt/logz", "--dry-run",
		"--sbatch-args", `--comment="two words" --mail-user 'a b' --constraint=x\y --begin :now -p short`)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"--job-name=logz-train-tiny"},
		{"--array=0-1"},
		{"--output=" + filepath.Join(dir, `my dir #1 "x" 100%%`, "slurm", "logs", "train-%a.out")},
		{"--comment=two words"},
		{"--mail-user", "a b"},
		{`--constraint=x\y`},
		{"--begin", ":now"},
		{"-p", "short"},
	}
	var got [][]string
	script, _, _ := strings.Cut(stdout, "==> "+filepath.Join(out, "slurm", "eval-0-"))
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(line, "#SBATCH"); ok {
			args, err := sbatchArgs(rest)
			if err != nil {
				t.Errorf("sbatch cannot read %q: %v", line, err)
			}
			got = append(got, args)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("the #SBATCH lines of train.sbatch read as\n%q\nwant\n%q\n%s", got, want, script)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--sbatch-args", "-p short\nexport X=1"}, "slurm: --sbatch-args: a control character (U+000A, a newline) at byte 8"},
		{[]string{"--sbatch-args", "--comment='a\nb'"}, "slurm: --sbatch-args: a control character (U+000A, a newline)"},
		{[]string{"--sbatch-args", "-p\tshort"}, "slurm: --sbatch-args: a control character (U+0009, a tab)"},
		{[]string{"--sbatch-args", "--comment=a\x1bb"}, "slurm: --sbatch-args: a control character (U+001B)"},
		{[]string{"--out", filepath.Join(dir, "a\nb")}, "slurm: --out: a control character (U+000A, a newline)"},
		{[]string{"--out", filepath.Join(dir, `a\b`)}, "slurm: --out: a backslash"},
	} {
		_, _, err := runLogz(t, append([]string{"slurm", cfg, "--shards", "2", "--dry-run"}, c.args...)...)
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want a usage error with %q", c.args, err, c.want)
		}
	}
}

// TestEvalSharded: `logz eval` in 3 shards into --parts, then merged with
// --parts alone, prints the rows of the evaluation in one process (times
// aside); a missing shard is an error naming it.
func TestEvalSharded(t *testing.T) {
	args := []string{"eval", "--model", "../../models/testdata/numpy_rbm.npz", "--data", "npy:../../models/testdata/numpy_data.npy",
		"--estimator", "exact,ais,raise,csl", "--chains", "7", "--betas", "100", "--examples", "9", "--json"}
	whole, _, err := runLogz(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for i := range 3 {
		if _, _, err := runLogz(t, append(args, "--shard", fmt.Sprintf("%d/3", i), "--parts", dir)...); err != nil {
			t.Fatal(err)
		}
	}
	merged, _, err := runLogz(t, append(args, "--parts", dir)...)
	if err != nil {
		t.Fatal(err)
	}
	times := regexp.MustCompile(`"seconds": [^,]*,`)
	if a, b := times.ReplaceAllString(whole, ""), times.ReplaceAllString(merged, ""); a != b {
		t.Errorf("merged evaluation differs from the whole:\n%s\nwant:\n%s", b, a)
	}
	other := append([]string(nil), args...)
	other[10] = "101" // --betas
	if _, _, err := runLogz(t, append(other, "--parts", dir)...); err == nil || !strings.Contains(err.Error(), "eval-0-of-3.json was made with another settings (config hash") {
		t.Errorf("other settings: %v", err)
	}
	os.Remove(filepath.Join(dir, "parts", "eval-2-of-3.json"))
	if _, _, err := runLogz(t, append(args, "--parts", dir)...); err == nil || !strings.Contains(err.Error(), "/parts: shard 2 of 3 is missing") {
		t.Errorf("a missing shard: %v", err)
	}
	if _, _, err := runLogz(t, append(args[:len(args)-1], "--shard", "0/3")...); err == nil || !strings.Contains(err.Error(), "--shard needs --parts DIR") {
		t.Errorf("--shard without --parts: %v", err)
	}
}
