// Package killmatrix is the mutants' kill matrix as data the binary
// carries: for each mutant of the reference and of our relays (package
// mutants), the rule it breaks and the checks that failed against it.
// acpconform explain says from it which mutants each check kills.
//
// go test ./mutants -update runs the catalogue against every mutant and
// writes matrix.json here with docs/mutants.md, which shows the same
// rows; the mutants package's TestMatrixIsCurrent holds the two to one
// run and to the mutants there are. Do not edit matrix.json by hand.
package killmatrix

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// File is matrix.json's path in the repository, for the generator.
const File = "internal/killmatrix/matrix.json"

//go:embed matrix.json
var matrixJSON []byte

// Mutant is one row of the matrix.
type Mutant struct {
	Name   string `json:"mutant"`
	Breaks string `json:"breaks"` // the CONTRACT ID it breaks
	// KilledBy is the IDs of the checks that failed against it, in the
	// order the catalogue ran them.
	KilledBy []string `json:"killedBy"`
}

var parsed = sync.OnceValues(func() ([]Mutant, error) { return Decode(matrixJSON) })

// Matrix is the kill matrix this binary was built with, in mutant name
// order; empty when matrix.json has not been generated yet.
func Matrix() []Mutant {
	m, err := parsed()
	if err != nil {
		panic(fmt.Sprintf("killmatrix: %s does not parse (run go test ./mutants -update): %v", File, err))
	}
	return m
}

// Kills is the names of the mutants of Matrix that the check with this ID
// kills, in name order.
func Kills(check string) []string {
	var names []string
	for _, m := range Matrix() {
		if slices.Contains(m.KilledBy, check) {
			names = append(names, m.Name)
		}
	}
	return names
}

// Encode writes the matrix as matrix.json holds it: the rows in name
// order, one a line, so that a change to the matrix is a diff of the
// mutants whose checks changed.
func Encode(rows []Mutant) []byte {
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b Mutant) int { return strings.Compare(a.Name, b.Name) })
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, m := range rows {
		if m.KilledBy == nil {
			m.KilledBy = []string{}
		}
		line, err := json.Marshal(m)
		if err != nil {
			panic(err) // strings and slices of strings always marshal
		}
		b.Write(line)
		if i < len(rows)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// Decode reads what Encode wrote.
func Decode(data []byte) ([]Mutant, error) {
	var rows []Mutant
	if err := json.Unmarshal(data, &rows); err != nil {
		return nil, err
	}
	for i, m := range rows {
		if m.Name == "" || m.Breaks == "" {
			return nil, fmt.Errorf("row %d has no mutant or no rule", i+1)
		}
		if i > 0 && rows[i-1].Name >= m.Name {
			return nil, fmt.Errorf("row %d, %s, is out of name order or repeated", i+1, m.Name)
		}
	}
	return rows, nil
}
