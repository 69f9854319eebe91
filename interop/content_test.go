package interop_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/scenarios"
)

// TestKitsJudgeContentAsTheCatalogue: the TypeScript and Python kits'
// judges of a form's content (contentProblems, content_problems) hold
// valid exactly the content the agent's ELI checks want handed back, and
// find a problem in each content the checks want refused: the answers of
// the catalogue's own judge (scenarios' TestTheReferenceJudgesContentAsTheCatalogue).
// Each kit reads the cases as it reads what a client sends: the
// TypeScript SDK with JSON.parse, the Python kit with its exact numbers.
func TestKitsJudgeContentAsTheCatalogue(t *testing.T) {
	t.Parallel()
	cases := scenarios.ContentCases()
	var input bytes.Buffer
	for _, c := range cases {
		input.WriteString(`[` + string(c.RequestedSchema) + `,` + string(c.Content) + "]\n")
	}
	tsJudge := `import { contentProblems } from ` + strconv.Quote(filepath.Join(kitTSDir(t), "content.mjs")) + `;
import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const [schema, content] = JSON.parse(line);
  console.log(JSON.stringify(contentProblems(schema, content)));
}`
	pyJudge := `import sys
sys.path.insert(0, sys.argv[1])
import acpconform_kit as kit
for line in sys.stdin:
    schema, content = kit.loads(line)
    print(kit.dumps(kit.content_problems(schema, content)))`
	for _, judge := range []struct {
		kit  string
		args []string
	}{
		{"the TypeScript kit's contentProblems", []string{node, "--input-type=module", "-e", tsJudge}},
		{"the Python kit's content_problems", []string{python3, "-B", "-c", pyJudge, pyKit}},
	} {
		cmd := exec.CommandContext(ctxFor(t), judge.args[0], judge.args[1:]...)
		cmd.Stdin = bytes.NewReader(input.Bytes())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", judge.kit, err, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(cases) {
			t.Fatalf("%s answered %d cases of %d:\n%s", judge.kit, len(lines), len(cases), out)
		}
		for i, c := range cases {
			var problems []string
			if err := json.Unmarshal([]byte(lines[i]), &problems); err != nil {
				t.Fatalf("%s: %q: %v", judge.kit, lines[i], err)
			}
			if (len(problems) == 0) != c.Valid {
				t.Errorf("%s: %s: %s is valid %v to the catalogue; the kit says %q", judge.kit, c.Name, c.Content, c.Valid, problems)
			}
		}
	}
}
