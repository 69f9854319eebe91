package suite_test

import (
	"fmt"

	"github.com/acpconform/acpconform/reports"
	"github.com/acpconform/acpconform/suite"
)

// Deal gives shard I the Ith, the (I+N)th and so on of the selected
// checks: acpconform merge deals them again to check each shard's share.
func ExampleDeal() {
	ids := []string{"TOK-1/a", "TOK-1/b", "TOK-2/a", "TOK-2/b", "TOK-3/a"}
	for i := 1; i <= 3; i++ {
		fmt.Println(i, suite.Deal(ids, reports.Shard{Index: i, Count: 3}))
	}
	fmt.Println(len(suite.Deal(ids[:1], reports.Shard{Index: 2, Count: 2})), "checks for a shard with no share")
	// Output:
	// 1 [TOK-1/a TOK-2/b]
	// 2 [TOK-1/b TOK-3/a]
	// 3 [TOK-2/a]
	// 0 checks for a shard with no share
}
