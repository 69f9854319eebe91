package suite

import (
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/acpconform/acpconform/reports"
)

// shardFilter narrows the label filter of a run to the checks of one
// shard: the checks the run would otherwise execute (as the preview
// shows them), by ID in catalogue order, dealt round-robin, so that the
// shards' shares differ by one check at most, whatever the selection.
// A check ID declared for several subjects (acpconform run's two
// reference clients) is one card: its checks go to one shard.
func shardFilter(filter string, shard reports.Shard, preview types.Report) string {
	var ids []string
	seen := map[string]bool{}
	for _, s := range preview.SpecReports {
		if s.LeafNodeType != types.NodeTypeIt || s.State != types.SpecStatePassed { // would not run
			continue
		}
		for _, l := range s.Labels() {
			if id, ok := CheckID(l); ok && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	var mine []string
	for i, id := range ids {
		if i%shard.Count == shard.Index-1 {
			mine = append(mine, regexp.QuoteMeta(strings.Replace(id, "/", ":", 1)))
		}
	}
	// No check label is "check:" alone: an empty share selects nothing.
	share := "/^" + CheckLabelPrefix + "(" + strings.Join(mine, "|") + ")$/"
	if filter == "" {
		return share
	}
	return "(" + filter + ") && " + share
}
