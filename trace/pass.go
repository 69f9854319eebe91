package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line Pass carries: a side that sends a longer
// one has its direction closed (the relay rule REL-7 allows a relay to
// refuse what is too large for it by closing), and the trace says so.
const MaxLine = 64 << 20

// Pass carries the lines src sends to dst unchanged, byte for byte,
// each as it comes, and records each as a message from side just before
// it passes it on: so whatever a message causes on the other side is
// recorded after it, and the trace's order is that of cause and effect
// (recording after passing on let an answer be recorded before its
// request). It returns when src ends or fails, or dst fails, having
// recorded the end of side with why. It does not close dst.
func (w *Writer) Pass(from Side, src io.Reader, dst io.Writer) error {
	r := bufio.NewReaderSize(src, 64<<10)
	var long []byte // a line longer than r's buffer, so far
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > MaxLine {
				why := fmt.Sprintf("sent a line longer than %d bytes, which the recorder does not carry: this direction was closed", MaxLine)
				w.End(from, why)
				return fmt.Errorf("the %s %s", from, why)
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if len(line) > 0 {
			message, complete := bytes.CutSuffix(line, []byte{'\n'})
			w.Message(from, message, !complete)
			if _, werr := dst.Write(line); werr != nil {
				w.End(from, "its message could not be passed on: "+werr.Error())
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			w.End(from, "closed its output")
			return nil
		}
		if err != nil {
			w.End(from, "its output failed: "+err.Error())
			return err
		}
	}
}
