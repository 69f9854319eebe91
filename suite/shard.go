package suite

import (
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
)

// Selectable returns the IDs of the checks among specs that a run would
// execute, in catalogue order, each once: its It nodes that the preview
// would run (state passed) and that selected accepts by their labels
// (nil accepts all). A check ID declared for several subjects
// (acpconform run's reference clients) is listed once, so that its
// checks go to one shard. Run deals what a preview with the run's filter
// selects; acpconform merge passes its own catalogue and the filter a
// shard recorded, to deal the shares again.
func Selectable(specs types.SpecReports, selected func(labels []string) bool) []string {
	var ids []string
	seen := map[string]bool{}
	for _, s := range specs {
		if s.LeafNodeType != types.NodeTypeIt || s.State != types.SpecStatePassed { // would not run
			continue
		}
		if selected != nil && !selected(s.Labels()) {
			continue
		}
		for _, l := range s.Labels() {
			if id, ok := CheckID(l); ok && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// Deal returns the IDs among ids that go to shard: dealt round-robin in
// order, so that the shards' shares differ by one check at most,
// whatever the selection. It is never nil: an empty share is empty.
func Deal(ids []string, shard reports.Shard) []string {
	mine := []string{}
	for i, id := range ids {
		if i%shard.Count == shard.Index-1 {
			mine = append(mine, id)
		}
	}
	return mine
}

// shareFilter narrows the label filter of a run to the checks dealt to
// its shard.
func shareFilter(filter string, dealt []string) string {
	quoted := make([]string, len(dealt))
	for i, id := range dealt {
		quoted[i] = regexp.QuoteMeta(strings.Replace(id, "/", ":", 1))
	}
	// No check label is "check:" alone: an empty share selects nothing.
	share := "/^" + CheckLabelPrefix + "(" + strings.Join(quoted, "|") + ")$/"
	if filter == "" {
		return share
	}
	return "(" + filter + ") && " + share
}
