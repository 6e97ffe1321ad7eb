package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/logz-ml/logz/internal/atomicfile"
)

// Version is the results.json format version written and accepted.
const Version = 1

// rowJSON has Row's fields and tags but not its methods, so that
// Row.MarshalJSON can call the default encoder without recursing.
type rowJSON Row

// MarshalJSON encodes r as one results.json estimate. It refuses a row that
// fails Validate (in particular any NaN or ±Inf, which JSON cannot hold) and
// writes nil Warnings as [] rather than null.
func (r Row) MarshalJSON() ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("report: %s: %w", r.describe(-1), err)
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rowJSON(r)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// EncodeResults writes {"version":1,"estimates":[...]} to w, indented by two
// spaces and ending in a newline: the object `logz eval --json` prints and
// results.json holds. It writes nothing and returns an error naming the row
// when a row fails Validate.
func EncodeResults(w io.Writer, rows []Row) error { return EncodeResultsGrid(w, rows, nil) }

// EncodeResultsGrid is EncodeResults for a run whose experiments g places
// in grid points: the object adds "selections", the choice of every grid
// with select: (Selections), when there is one.
func EncodeResultsGrid(w io.Writer, rows []Row, g Grid) error {
	if err := validateRows(rows); err != nil {
		return fmt.Errorf("report: results: %w", err)
	}
	if rows == nil {
		rows = []Row{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		Version    int         `json:"version"`
		Estimates  []Row       `json:"estimates"`
		Selections []Selection `json:"selections,omitempty"`
	}{Version, rows, Selections(rows, g)})
	if err != nil {
		return fmt.Errorf("report: results: %w", err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// WriteResults writes rows to path as results.json, atomically: a crash or
// a bad row leaves any previous file at path intact.
func WriteResults(path string, rows []Row) error { return WriteResultsGrid(path, rows, nil) }

// WriteResultsGrid is WriteResults with the selections of the grids of g
// (EncodeResultsGrid).
func WriteResultsGrid(path string, rows []Row, g Grid) error {
	if err := validateRows(rows); err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error { return EncodeResultsGrid(w, rows, g) })
}

// WriteFileAtomic writes path through write via a temporary file in the same
// directory that is synced and renamed over path; see atomicfile.WriteFile.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.WriteFile(path, write)
}

// ReadResults reads a results.json file written by WriteResults (or any
// producer of the same contract). Unknown fields, a version other than 1, a
// missing "estimates" list and rows that fail Validate are errors naming the
// file and, for syntax and type errors, the line and column.
func ReadResults(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return decodeResults(data, path)
}

// DecodeResults reads a results.json object from r; name is used in errors.
func DecodeResults(r io.Reader, name string) ([]Row, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("report: reading %s: %w", name, err)
	}
	return decodeResults(data, name)
}

func decodeResults(data []byte, name string) ([]Row, error) {
	var doc struct {
		Version   *int   `json:"version"`
		Estimates *[]Row `json:"estimates"`
		// Selections are derived from the estimates and the run's config
		// (EncodeResultsGrid), so reading skips them.
		Selections json.RawMessage `json:"selections"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("report: %s: %s", name, jsonError(data, err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("report: %s: %s: unexpected data after the results object", name, position(data, dec.InputOffset()))
	}
	switch {
	case doc.Version == nil:
		return nil, fmt.Errorf("report: %s: missing field \"version\" (want %d)", name, Version)
	case *doc.Version != Version:
		return nil, fmt.Errorf("report: %s: version %d, this logz reads version %d", name, *doc.Version, Version)
	case doc.Estimates == nil:
		return nil, fmt.Errorf("report: %s: missing field \"estimates\" (a list of rows)", name)
	}
	rows := *doc.Estimates
	for i := range rows {
		if err := rows[i].Validate(); err != nil {
			return nil, fmt.Errorf("report: %s: estimates[%d]: %w", name, i, err)
		}
		if rows[i].Warnings == nil {
			rows[i].Warnings = []string{}
		}
	}
	return rows, nil
}

// jsonError adds the line and column to the decoder's syntax and type errors.
func jsonError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s: invalid JSON: %v", position(data, se.Offset), se)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the results object"
		}
		return fmt.Sprintf("%s: field %s: got JSON %s, want %v", position(data, te.Offset), field, te.Value, te.Type)
	case errors.Is(err, io.EOF):
		return "empty file, want a results object"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated JSON"
	}
	return err.Error()
}

// position converts a byte offset into "line L, column C" (1-based).
func position(data []byte, off int64) string {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
