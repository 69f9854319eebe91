package reportcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// JUnitXSD is the path of junit-10.xsd, the schema of Jenkins' xUnit
// plugin that junit.xml must be valid against (reports/testdata has it,
// with where it comes from), in the source tree these tests run from: the
// module root is found from the package's directory, where go test runs
// them, not from this file's compiled path, which -trimpath leaves out.
var JUnitXSD = func() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "reports", "testdata", "junit-10.xsd")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, "reports", "testdata", "junit-10.xsd") // xmllint says it is missing
		}
	}
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
