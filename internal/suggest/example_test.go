package suggest_test

import (
	"fmt"

	"github.com/acpconform/acpconform/internal/suggest"
)

func ExampleNearest() {
	commands := []string{"run", "agent", "client", "relay", "list", "explain"}
	fmt.Println(suggest.Nearest("exlpain", commands, 3))
	fmt.Println(suggest.Nearest("mutant", commands, 3))
	// Output:
	// [explain]
	// []
}
