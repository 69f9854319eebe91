package killmatrix

import (
	"slices"
	"strings"
	"testing"
)

// TestEncodeReadsBack: what the generator writes, Decode reads, a row a
// line in name order, and Kills finds each check's mutants in it.
func TestEncodeReadsBack(t *testing.T) {
	rows := []Mutant{
		{Name: "leading-zero-accepted", Breaks: "TOK-2", KilledBy: []string{"TOK-2/leading-zero", "TOK-2/two-zeros"}},
		{Name: "errors-answered-as-success", Breaks: "TOK-2", KilledBy: []string{"TOK-2/leading-zero", "VAL-1/blank-question"}},
		{Name: "survivor", Breaks: "VAL-1"},
	}
	data := Encode(rows)
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != len(rows)+2 || !strings.HasPrefix(lines[1], `{"mutant":"errors-answered-as-success",`) {
		t.Errorf("Encode wrote\n%s\nwant a row a line, in name order", data)
	}
	back, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].Name != "errors-answered-as-success" || !slices.Equal(back[1].KilledBy, rows[0].KilledBy) || back[2].KilledBy == nil {
		t.Errorf("Decode(Encode(rows)) = %+v", back)
	}

	saved := parsed
	defer func() { parsed = saved }()
	parsed = func() ([]Mutant, error) { return back, nil }
	if got := Kills("TOK-2/leading-zero"); !slices.Equal(got, []string{"errors-answered-as-success", "leading-zero-accepted"}) {
		t.Errorf("Kills(TOK-2/leading-zero) = %q", got)
	}
	if got := Kills("TOK-2/nope"); got != nil {
		t.Errorf("Kills of a check no mutant fails = %q, want none", got)
	}
}

// TestDecodeRefusesAMalformedMatrix: a row without its mutant, or rows
// out of order, are not what the generator writes.
func TestDecodeRefusesAMalformedMatrix(t *testing.T) {
	for _, data := range []string{
		`[{"mutant":"","breaks":"TOK-2","killedBy":[]}]`,
		`[{"mutant":"b","breaks":"TOK-2","killedBy":[]},{"mutant":"a","breaks":"TOK-2","killedBy":[]}]`,
		`{"mutant":"a"}`,
	} {
		if _, err := Decode([]byte(data)); err == nil {
			t.Errorf("Decode(%s) = nil error", data)
		}
	}
}

// TestTheEmbeddedMatrixParses: the binary's matrix.json reads, whatever
// it holds (go test ./mutants TestMatrixIsCurrent says whether it is
// current).
func TestTheEmbeddedMatrixParses(t *testing.T) {
	if _, err := Decode(matrixJSON); err != nil {
		t.Fatalf("%s: %v", File, err)
	}
}
