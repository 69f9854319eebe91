package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/acpconform/acpconform/internal/elide"
)

// ContentProblems says how an accepted form answer's content fails the
// form's requestedSchema (CONTRACT ELI-3 for an agent, ELI-8 for a
// client), as ACP schema 1.21.0 reads it: content is an object (or absent
// or null, the same, when nothing is required) whose undeclared properties
// hold content values, each required one present, each value of its
// property's type, within its bounds and, for a single- or multi-select,
// among the offered values. Types are judged by value, as JSON Schema
// does: an integer is any number without a fraction (36.0 is 36) within
// int64, the schema's content integer; a number any JSON number a double
// holds (not 1e400). Bounds are inclusive (minimum, maximum; minLength and
// maxLength in code points; minItems, maxItems); pattern is an ECMA-262
// regular expression, unanchored; format is judged by its RFC (see
// hasFormat). A property of a type the schema does not know (a custom
// one) takes any content value. It returns nil for valid content, and one
// problem per property otherwise, in property order.
func ContentProblems(requestedSchema, content json.RawMessage) []string {
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(requestedSchema, &schema); err != nil {
		return []string{fmt.Sprintf("the requested schema cannot be read: %v", err)}
	}
	var values map[string]json.RawMessage
	if len(content) > 0 && !isNull(content) {
		if err := json.Unmarshal(content, &values); err != nil || values == nil {
			return []string{fmt.Sprintf("the content is not a JSON object: %s", elide.Head(string(content), maxQuoted))}
		}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		prop, declared := schema.Properties[name]
		if !declared {
			// Valid under JSON Schema: the requested schema does not forbid
			// additional properties (contract revision 5). Its value must
			// still be one the schema's content may hold.
			if !isContentValue(values[name]) {
				problems = append(problems, fmt.Sprintf("%q, a property the form does not declare, holds %s, no elicitation content value", elide.Head(name, maxQuoted), elide.Head(string(values[name]), maxQuoted)))
			}
			continue
		}
		if p := propertyProblem(prop, values[name]); p != "" {
			problems = append(problems, fmt.Sprintf("%q %s", name, p))
		}
	}
	for _, name := range schema.Required {
		if _, ok := values[name]; !ok {
			problems = append(problems, fmt.Sprintf("the required property %q is missing", name))
		}
	}
	return problems
}

// ContentShapeProblems says how an accepted form answer's content breaks
// the shape schema 1.21.0 gives every answer, whatever was asked
// (CONTRACT ELI-4, a MUST): content is absent, null, or an object whose
// members hold elicitation content values (a string, a number, a boolean,
// an array of strings). Whether it satisfies the requested schema is
// [ContentProblems]' question, a SHOULD (ELI-8). It returns nil for content
// of the right shape.
func ContentShapeProblems(content json.RawMessage) []string {
	if len(content) == 0 || isNull(content) {
		return nil
	}
	var values map[string]json.RawMessage
	if err := json.Unmarshal(content, &values); err != nil || values == nil {
		return []string{fmt.Sprintf("the content is not a JSON object: %s", elide.Head(string(content), maxQuoted))}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !isContentValue(values[name]) {
			problems = append(problems, fmt.Sprintf("%q holds %s, no elicitation content value (a string, a number, a boolean or an array of strings)", elide.Head(name, maxQuoted), elide.Head(string(values[name]), maxQuoted)))
		}
	}
	return problems
}

// property is what a form property of schema 1.21.0 says of its value.
type property struct {
	Type      string       `json:"type"`
	Format    *string      `json:"format"`
	Pattern   *string      `json:"pattern"`
	MinLength *int         `json:"minLength"`
	MaxLength *int         `json:"maxLength"`
	Minimum   json.Number  `json:"minimum"`
	Maximum   json.Number  `json:"maximum"`
	MinItems  *int         `json:"minItems"`
	MaxItems  *int         `json:"maxItems"`
	Enum      []string     `json:"enum"`
	OneOf     []enumOption `json:"oneOf"`
	Items     *property    `json:"items"`
	AnyOf     []enumOption `json:"anyOf"` // of titled multi-select items
}

type enumOption struct {
	Const string `json:"const"`
}

// allowed lists the values a single-select (or multi-select items) offers;
// nil when it offers no list.
func (p property) allowed() []string {
	if p.Enum != nil {
		return p.Enum
	}
	options := p.OneOf
	if options == nil {
		options = p.AnyOf
	}
	if options == nil {
		return nil
	}
	out := make([]string, len(options))
	for i, o := range options {
		out[i] = o.Const
	}
	return out
}

// propertyProblem says how value fails prop; "" when it does not.
func propertyProblem(rawProp, value json.RawMessage) string {
	var p property
	if err := json.Unmarshal(rawProp, &p); err != nil {
		return "" // a property the schema cannot read constrains nothing we can tell
	}
	shown := elide.Head(string(value), maxQuoted)
	switch p.Type {
	case "string":
		var s string
		if json.Unmarshal(value, &s) != nil || isNull(value) {
			return "is " + shown + ", want a string"
		}
		return stringProblem(p, s)
	case "integer", "number":
		n, ok := number(value)
		if !ok {
			return "is " + shown + ", want " + article(p.Type)
		}
		if p.Type == "integer" && !n.IsInt() {
			return "is " + shown + ", want an integer"
		}
		// The schema's content integer is an int64, its number a double
		// (ElicitationContentValue): what neither holds is no answer.
		if p.Type == "integer" && (n.Cmp(minInt64) < 0 || n.Cmp(maxInt64) > 0) {
			return "is " + shown + ", an integer beyond int64, the range of the schema's content integer"
		}
		if f, _ := n.Float64(); math.IsInf(f, 0) {
			return "is " + shown + ", a number beyond a double, the range of the schema's content number"
		}
		if min, ok := number(json.RawMessage(p.Minimum)); ok && n.Cmp(min) < 0 {
			return fmt.Sprintf("is %s, below the minimum %s", shown, p.Minimum)
		}
		if max, ok := number(json.RawMessage(p.Maximum)); ok && n.Cmp(max) > 0 {
			return fmt.Sprintf("is %s, above the maximum %s", shown, p.Maximum)
		}
	case "boolean":
		if !bytes.Equal(value, []byte("true")) && !bytes.Equal(value, []byte("false")) {
			return "is " + shown + ", want a boolean"
		}
	case "array":
		items, ok := stringArray(value)
		if !ok {
			return "is " + shown + ", want an array of strings"
		}
		if p.MinItems != nil && len(items) < *p.MinItems {
			return fmt.Sprintf("has %d items, fewer than minItems %d", len(items), *p.MinItems)
		}
		if p.MaxItems != nil && len(items) > *p.MaxItems {
			return fmt.Sprintf("has %d items, more than maxItems %d", len(items), *p.MaxItems)
		}
		if p.Items != nil {
			if allowed := p.Items.allowed(); allowed != nil {
				for _, it := range items {
					if !slices.Contains(allowed, it) {
						return fmt.Sprintf("has the item %q, none of the offered %q", elide.Head(it, maxQuoted), allowed)
					}
				}
			}
		}
	default: // a custom or future type: any content value
		if !isContentValue(value) {
			return "is " + shown + ", which is no elicitation content value (string, number, boolean or array of strings)"
		}
	}
	return ""
}

func article(kind string) string {
	if kind == "integer" {
		return "an integer"
	}
	return "a number"
}

// stringProblem says how s fails a string property's bounds, format and
// offered values.
func stringProblem(p property, s string) string {
	if allowed := p.allowed(); allowed != nil && !slices.Contains(allowed, s) {
		return fmt.Sprintf("is %q, none of the offered %q", elide.Head(s, maxQuoted), allowed)
	}
	// JSON Schema counts a string's length in code points.
	if n := utf8.RuneCountInString(s); p.MinLength != nil && n < *p.MinLength {
		return fmt.Sprintf("is %d characters long, shorter than minLength %d", n, *p.MinLength)
	} else if p.MaxLength != nil && n > *p.MaxLength {
		return fmt.Sprintf("is %d characters long, longer than maxLength %d", n, *p.MaxLength)
	}
	if p.Pattern != nil {
		// An ECMA-262 pattern Go cannot compile is not held against the value.
		if re, err := regexp.Compile(*p.Pattern); err == nil && !re.MatchString(s) {
			return fmt.Sprintf("is %q, which does not match the pattern %q", elide.Head(s, maxQuoted), *p.Pattern)
		}
	}
	if p.Format != nil && !hasFormat(*p.Format, s) {
		return fmt.Sprintf("is %q, not of the format %q", elide.Head(s, maxQuoted), *p.Format)
	}
	return ""
}

// hasFormat reports whether s is of one of schema 1.21.0's string formats,
// each judged by its RFC, as JSON Schema names them: email an RFC 5322
// addr-spec, uri an RFC 3986 URI, date an RFC 3339 full-date, date-time an
// RFC 3339 date-time. A format it does not name holds any string.
func hasFormat(format, s string) bool {
	switch format {
	case "email":
		return isAddrSpec(s)
	case "uri":
		return isURI(s)
	case "date":
		return isFullDate(s)
	case "date-time":
		return isDateTime(s)
	}
	return true
}

// isFullDate reports whether s is an RFC 3339 full-date (§5.6):
// date-fullyear "-" date-month "-" date-mday, of 4, 2 and 2 ASCII digits,
// the month 01-12 and the day within its month, February 29 in leap years
// only (Gregorian, §5.7).
func isFullDate(s string) bool {
	if len(s) != len("2006-01-02") || s[4] != '-' || s[7] != '-' {
		return false
	}
	y, okY := digits(s[0:4])
	m, okM := digits(s[5:7])
	d, okD := digits(s[8:10])
	return okY && okM && okD && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m)
}

// isDateTime reports whether s is an RFC 3339 date-time (§5.6): full-date
// "T" time-hour ":" time-minute ":" time-second ["." 1*DIGIT] time-offset,
// time-offset "Z" or ("+" / "-") time-hour ":" time-minute; "T" and "Z"
// may be lower case (§5.6, NOTE). Every field has exactly its two digits:
// hour 00-23, minute 00-59, second 00-59, or 60 for a leap second, which
// falls at 23:59 UTC (§5.7: "23:59:60Z", or "15:59:60-08:00"). No comma
// for the fraction, no space for the "T".
func isDateTime(s string) bool {
	if len(s) < len("2006-01-02T15:04:05Z") || !isFullDate(s[:10]) || (s[10] != 'T' && s[10] != 't') {
		return false
	}
	t := s[11:]
	if t[2] != ':' || t[5] != ':' {
		return false
	}
	h, okH := digits(t[0:2])
	mi, okMi := digits(t[3:5])
	sec, okS := digits(t[6:8])
	if !okH || !okMi || !okS || h > 23 || mi > 59 || sec > 60 {
		return false
	}
	t = t[8:]
	if frac, ok := strings.CutPrefix(t, "."); ok {
		n := 0
		for n < len(frac) && frac[n] >= '0' && frac[n] <= '9' {
			n++
		}
		if n == 0 {
			return false // time-secfrac = "." 1*DIGIT
		}
		t = frac[n:]
	}
	offset := 0 // minutes east of UTC
	switch {
	case t == "Z" || t == "z":
	case len(t) == len("+00:00") && (t[0] == '+' || t[0] == '-') && t[3] == ':':
		oh, okOH := digits(t[1:3])
		om, okOM := digits(t[4:6])
		if !okOH || !okOM || oh > 23 || om > 59 {
			return false
		}
		offset = oh*60 + om
		if t[0] == '-' {
			offset = -offset
		}
	default:
		return false
	}
	// A leap second is the last second of a UTC day.
	return sec < 60 || ((h*60+mi-offset)%1440+1440)%1440 == 23*60+59
}

// digits reads a field of ASCII decimal digits, and only those.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, s != ""
}

// daysIn is the number of days of month m (1-12) of year y.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// isURI reports whether s is an RFC 3986 URI (§3): scheme ":" hier-part
// ["?" query] ["#" fragment], an absolute one (a relative reference is
// not a URI). It is ASCII, of the characters §2 allows where it has them
// (unreserved, sub-delims, ":" and "@" in a path, "/" and "?" in a query or
// fragment), with "%" always followed by two hex digits; an authority is
// [userinfo "@"] host [":" port], its host an IP-literal in brackets or a
// reg-name.
func isURI(s string) bool {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok || !isScheme(scheme) {
		return false
	}
	if before, fragment, ok := strings.Cut(rest, "#"); ok {
		if !uriPart(fragment, "/?") {
			return false
		}
		rest = before
	}
	if before, query, ok := strings.Cut(rest, "?"); ok {
		if !uriPart(query, "/?") {
			return false
		}
		rest = before
	}
	if after, ok := strings.CutPrefix(rest, "//"); ok {
		end := strings.IndexByte(after, '/')
		if end < 0 {
			end = len(after)
		}
		if !isAuthority(after[:end]) {
			return false
		}
		rest = after[end:] // path-abempty
	}
	return uriPart(rest, "/") // path-absolute, path-rootless or path-empty: pchars and "/"
}

// isScheme reports whether s is a URI scheme: ALPHA *( ALPHA / DIGIT /
// "+" / "-" / "." ).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlpha(c) && (i == 0 || !(isDigit(c) || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// isAuthority reports whether s is an RFC 3986 authority.
func isAuthority(s string) bool {
	if userinfo, host, ok := strings.Cut(s, "@"); ok {
		if !uriChars(userinfo, ":") {
			return false
		}
		s = host
	}
	host, port := s, ""
	if inside, ok := strings.CutPrefix(s, "["); ok {
		literal, after, ok := strings.Cut(inside, "]")
		if !ok || !isIPLiteral(literal) {
			return false
		}
		if after != "" {
			if after[0] != ':' {
				return false
			}
			port = after[1:]
		}
	} else {
		host, port, _ = strings.Cut(s, ":")
		if !uriChars(host, "") { // reg-name
			return false
		}
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// isIPLiteral reports whether s, inside the brackets, is an IPv6address or
// an IPvFuture ("v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )).
func isIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		version, rest, ok := strings.Cut(s[1:], ".")
		if !ok || version == "" || rest == "" || strings.Contains(rest, "%") {
			return false
		}
		for i := 0; i < len(version); i++ {
			if !isHex(version[i]) {
				return false
			}
		}
		return uriChars(rest, ":")
	}
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6() && a.Zone() == "" // RFC 3986 has no zone
}

// uriPart reports whether s holds only pchars (unreserved, pct-encoded,
// sub-delims, ":", "@") and the characters of extra.
func uriPart(s, extra string) bool { return uriChars(s, ":@"+extra) }

// uriChars reports whether s holds only unreserved characters,
// pct-encoded octets ("%" and two hex digits), sub-delims and the
// characters of extra.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case isAlpha(c), isDigit(c), strings.IndexByte("-._~", c) >= 0, // unreserved
			strings.IndexByte("!$&'()*+,;=", c) >= 0, // sub-delims
			strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}

// isAddrSpec reports whether s is an RFC 5322 addr-spec (§3.4.1):
// local-part "@" domain, the local part a dot-atom or a quoted-string,
// the domain a dot-atom or a domain-literal. It is the address alone, as
// a form field holds it: no comments or folding white space around its
// parts, no obsolete syntax (§4), ASCII only (an internationalized
// address is RFC 6531's idn-email, not email).
func isAddrSpec(s string) bool {
	var rest string
	if quoted, ok := strings.CutPrefix(s, `"`); ok {
		end := quotedEnd(quoted)
		if end < 0 {
			return false
		}
		rest = quoted[end+1:]
	} else {
		local, _, _ := strings.Cut(s, "@")
		if !isDotAtom(local) {
			return false
		}
		rest = s[len(local):]
	}
	domain, ok := strings.CutPrefix(rest, "@")
	if !ok {
		return false
	}
	if literal, ok := strings.CutPrefix(domain, "["); ok {
		inner, ok := strings.CutSuffix(literal, "]")
		if !ok {
			return false
		}
		for i := 0; i < len(inner); i++ { // dtext, or white space
			if c := inner[i]; !(c >= 33 && c <= 90 || c >= 94 && c <= 126 || c == ' ' || c == '\t') {
				return false
			}
		}
		return true
	}
	return isDotAtom(domain)
}

// quotedEnd returns the index of the DQUOTE that ends a quoted-string
// whose opening DQUOTE is cut off s, or -1: qtext, quoted-pairs ("\" and
// a VCHAR or WSP) and white space within.
func quotedEnd(s string) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i
		case c == '\\':
			if i+1 >= len(s) || !(s[i+1] >= 33 && s[i+1] <= 126 || s[i+1] == ' ' || s[i+1] == '\t') {
				return -1
			}
			i++
		case c >= 33 && c <= 126, c == ' ', c == '\t': // qtext, or white space
		default:
			return -1
		}
	}
	return -1
}

// isDotAtom reports whether s is a dot-atom-text: 1*atext *("." 1*atext).
func isDotAtom(s string) bool {
	for _, atom := range strings.Split(s, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			if c := atom[i]; !isAlpha(c) && !isDigit(c) && strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) < 0 {
				return false
			}
		}
	}
	return true
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// The range of the schema's content integer, an int64.
var (
	minInt64 = big.NewRat(math.MinInt64, 1)
	maxInt64 = big.NewRat(math.MaxInt64, 1)
)

// number reads a JSON number exactly; ok is false for anything else.
func number(raw json.RawMessage) (*big.Rat, bool) {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) || !json.Valid(b) {
		return nil, false
	}
	// A JSON number's exponent is bounded here: 1e999999999 would take
	// big.Rat a long time to expand, and no form bound needs it.
	if i := bytes.IndexAny(b, "eE"); i >= 0 && len(b)-i > 6 {
		return nil, false
	}
	return new(big.Rat).SetString(string(b))
}

// isContentValue reports whether raw is one of schema 1.21.0's elicitation
// content values: a string, a number, a boolean or an array of strings.
func isContentValue(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v := v.(type) {
	case string, float64, bool:
		return true
	case []any:
		for _, it := range v {
			if _, ok := it.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}

// stringArray reads a JSON array of strings; ok is false for anything
// else, an array holding a null included.
func stringArray(raw json.RawMessage) ([]string, bool) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	out := make([]string, len(items))
	for i, it := range items {
		if isNull(it) || json.Unmarshal(it, &out[i]) != nil {
			return nil, false
		}
	}
	return out, true
}
