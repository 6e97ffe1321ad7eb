package family_test

import (
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// TestAs: a model of the type asked for comes back as it is; another, or
// none, is an error naming the model and both types, not a panic.
// Mutation checked: returning t, nil without the check fails it.
func TestAs(t *testing.T) {
	r := models.NewRBM(3, 2)
	if got, err := family.As[*models.RBM](r); err != nil || got != r {
		t.Errorf("As[*models.RBM](an RBM) = %p, %v; want the RBM", got, err)
	}
	d, err := models.NewDBM(3, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, err = family.As[*models.RBM](d)
	if want := "the model is a dbm (*models.DBM), not a *models.RBM"; err == nil || err.Error() != want {
		t.Errorf("As[*models.RBM](a DBM): %v, want %q", err, want)
	}
	if _, err := family.As[*models.RBM](nil); err == nil {
		t.Error("As[*models.RBM](nil): no error")
	}
}
