package reportcheck

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// JUnitXSD is the path of junit-10.xsd, the schema of Jenkins' xUnit
// plugin that junit.xml must be valid against (reports/testdata has it,
// with where it comes from), in the source tree these tests run from.
var JUnitXSD = func() string {
	_, file, _, _ := runtime.Caller(0) // .../internal/reportcheck/schema.go
	return filepath.Join(filepath.Dir(file), "..", "..", "reports", "testdata", "junit-10.xsd")
}()

// JUnitValid validates a junit.xml against JUnitXSD with the xmllint at
// xmllint (libxml2-utils), and returns what xmllint said when it is not
// valid, its first lines quoting the XML.
func JUnitValid(ctx context.Context, xmllint string, doc []byte) error {
	cmd := exec.CommandContext(ctx, xmllint, "--noout", "--nonet", "--schema", JUnitXSD, "-")
	cmd.Stdin = bytes.NewReader(doc)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		lines := strings.SplitN(out.String(), "\n", 21)
		if len(lines) > 20 {
			lines[20] = "[more]"
		}
		return fmt.Errorf("junit.xml is not valid against %s (xmllint: %w):\n%s", filepath.Base(JUnitXSD), err, strings.Join(lines, "\n"))
	}
	return nil
}
