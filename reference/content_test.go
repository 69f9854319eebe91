package reference_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/acpconform/acpconform/reference"
)

// everyShape is a form with a property of every shape of schema 1.21.0.
const everyShape = `{"type":"object","required":["name","age"],"properties":{
	"name":{"type":"string","title":"Name","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"born":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"},
	"age":{"type":"integer","minimum":0,"maximum":150},
	"ratio":{"type":"number","minimum":-0.5,"maximum":0.5},
	"agree":{"type":"boolean","default":false},
	"color":{"type":"string","enum":["red","green"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]}},
	"langs":{"type":"array","items":{"anyOf":[{"const":"go","title":"Go"},{"const":"ts","title":"TypeScript"}]}},
	"custom":{"type":"_vendor"}}}`

func TestContentProblems(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    string // a part of the one problem; "" for valid content
	}{
		{`{"name":"Ada","age":36}`, ""},
		{`{"name":"Ada","age":36.0}`, ""}, // JSON Schema's integer is a value
		{`{"name":"Ada","age":36,"email":"ada@example.com","site":"https://example.com/x","born":"1815-12-10",
			"at":"2026-12-04T10:00:00Z","code":"ABC","ratio":0.5,"agree":true,"color":"red","size":"l",
			"tags":["a","c"],"langs":["go","ts"],"custom":"x"}`, ""},
		{`{"name":"Ada","age":"36"}`, `"age" is "36", want an integer`},
		{`{"name":"Ada","age":36.5}`, `want an integer`},
		{`{"name":"Ada","age":151}`, `above the maximum 150`},
		{`{"name":"Ada","age":-1}`, `below the minimum 0`},
		{`{"name":"Ada"}`, `the required property "age" is missing`},
		{`{"age":1}`, `the required property "name" is missing`},
		{`{"name":"A","age":1}`, `shorter than minLength 2`},
		{`{"name":"Adaline","age":1}`, `longer than maxLength 5`},
		{`{"name":"😀😀","age":1}`, ""}, // two code points
		{`{"name":"Ada","age":1,"email":"ada"}`, `not of the format "email"`},
		{`{"name":"Ada","age":1,"site":"not a uri"}`, `not of the format "uri"`},
		{`{"name":"Ada","age":1,"born":"10/12/1815"}`, `not of the format "date"`},
		{`{"name":"Ada","age":1,"at":"2026-12-04"}`, `not of the format "date-time"`},
		{`{"name":"Ada","age":1,"code":"abc"}`, `does not match the pattern`},
		{`{"name":"Ada","age":1,"ratio":0.75}`, `above the maximum 0.5`},
		{`{"name":"Ada","age":1,"ratio":"0.1"}`, `want a number`},
		{`{"name":"Ada","age":1,"agree":"true"}`, `want a boolean`},
		{`{"name":"Ada","age":1,"color":"blue"}`, `none of the offered`},
		{`{"name":"Ada","age":1,"size":"m"}`, `none of the offered`},
		{`{"name":"Ada","age":1,"tags":[]}`, `fewer than minItems 1`},
		{`{"name":"Ada","age":1,"tags":["a","b","c"]}`, `more than maxItems 2`},
		{`{"name":"Ada","age":1,"tags":["z"]}`, `has the item "z"`},
		{`{"name":"Ada","age":1,"tags":"a"}`, `want an array of strings`},
		{`{"name":"Ada","age":1,"tags":["a",null]}`, `want an array of strings`},
		{`{"name":"Ada","age":1,"langs":["rust"]}`, `has the item "rust"`},
		{`{"name":"Ada","age":1,"custom":{"x":1}}`, `no elicitation content value`},
		{`{"name":"Ada","age":1,"nick":"A"}`, ""}, // JSON Schema allows additional properties
		{`{"name":"Ada","age":1,"nick":{"a":1}}`, `"nick", a property the form does not declare, holds {"a":1}, no elicitation content value`},
		{`{"name":"Ada","age":null}`, `want an integer`},
		{`{"name":"Ada","age":1e999999999}`, `want an integer`},
		{`["Ada"]`, `not a JSON object`},
		{`null`, `the required property "age" is missing`},
	} {
		got := reference.ContentProblems(json.RawMessage(everyShape), json.RawMessage(tc.content))
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("content %s: %q, want no problem", tc.content, got)
		case tc.want != "" && (len(got) == 0 || !strings.Contains(strings.Join(got, "; "), tc.want)):
			t.Errorf("content %s: %q, want a problem saying %q", tc.content, got, tc.want)
		}
	}
}

func TestContentProblemsWithoutRequired(t *testing.T) {
	for _, content := range []string{``, `null`, `{}`} {
		if got := reference.ContentProblems(json.RawMessage(`{"type":"object","properties":{"x":{"type":"boolean"}}}`), json.RawMessage(content)); got != nil {
			t.Errorf("content %q of a form with nothing required: %q, want no problem (absent and null are the same)", content, got)
		}
	}
}

// TestContentFormats judges each format of schema 1.21.0 by its RFC:
// every spelling the RFC's grammar allows is valid, every other refused,
// including those the judge once let through (a comma fraction, a
// one-digit hour, a non-ASCII URI, "http://a/<>").
func TestContentFormats(t *testing.T) {
	for _, tc := range []struct {
		format, value string
		valid         bool
	}{
		// RFC 3339 full-date.
		{"date", "1815-12-10", true},
		{"date", "2024-02-29", true}, // a leap year
		{"date", "2000-02-29", true}, // divisible by 400
		{"date", "0000-01-01", true},
		{"date", "1900-02-29", false}, // divisible by 100, not 400
		{"date", "2026-02-29", false},
		{"date", "2026-04-31", false},
		{"date", "2026-13-01", false},
		{"date", "2026-00-10", false},
		{"date", "2026-12-00", false},
		{"date", "2026-1-04", false}, // one-digit month
		{"date", "2026-12-4", false},
		{"date", "26-12-04", false},
		{"date", "+2026-12-04", false},
		{"date", "10/12/1815", false},
		{"date", "2026-12-04T10:30:00Z", false},
		{"date", "２０２６-12-04", false}, // fullwidth digits
		{"date", " 2026-12-04", false},
		{"date", "", false},
		// RFC 3339 date-time.
		{"date-time", "2026-12-04T10:30:00Z", true},
		{"date-time", "2026-12-04t10:30:00z", true}, // §5.6 NOTE: lower case allowed
		{"date-time", "2026-12-04T10:30:00.5Z", true},
		{"date-time", "2026-12-04T10:30:00.123456789012+05:30", true},
		{"date-time", "2026-12-04T10:30:00-08:00", true},
		{"date-time", "2026-12-04T00:00:00+00:00", true},
		{"date-time", "2026-12-04T23:59:59-23:59", true},
		{"date-time", "1998-12-31T23:59:60Z", true},          // a leap second
		{"date-time", "1998-12-31T15:59:60.123-08:00", true}, // the same second, west of UTC
		{"date-time", "1998-12-31T23:59:61Z", false},
		{"date-time", "1998-12-31T23:58:60Z", false},   // a leap second at the wrong minute
		{"date-time", "1998-12-31T22:59:60Z", false},   // or hour
		{"date-time", "2026-12-04T10:30:00,5Z", false}, // a comma fraction
		{"date-time", "2026-12-04T10:30:00.Z", false},  // a fraction without digits
		{"date-time", "2026-12-04T1:30:00Z", false},    // a one-digit hour
		{"date-time", "2026-12-04T10:3:00Z", false},
		{"date-time", "2026-12-04T10:30:0Z", false},
		{"date-time", "2026-12-04T10:30Z", false}, // no seconds
		{"date-time", "2026-12-04T24:00:00Z", false},
		{"date-time", "2026-12-04T10:60:00Z", false},
		{"date-time", "2026-12-04T10:30:00", false}, // no offset
		{"date-time", "2026-12-04 10:30:00Z", false},
		{"date-time", "2026-12-04T10:30:00+0530", false},
		{"date-time", "2026-12-04T10:30:00+5:30", false},
		{"date-time", "2026-12-04T10:30:00+24:00", false},
		{"date-time", "2026-12-04T10:30:00+05:60", false},
		{"date-time", "2026-12-04T10:30:00UTC", false},
		{"date-time", "2026-02-30T10:30:00Z", false},
		{"date-time", "2026-12-04T10:30:00Z ", false},
		{"date-time", "2026-12-04", false},
		// RFC 3986 URI.
		{"uri", "https://example.com/ada", true},
		{"uri", "https://user:pw@example.com:8443/a/b;c?q=1&r[]=2#frag/ment?", false}, // "[" and "]" are gen-delims, not allowed in a query
		{"uri", "https://user:pw@example.com:8443/a/b;c?q=1&r=2#frag/ment?", true},
		{"uri", "https://example.com/caf%C3%A9", true},
		{"uri", "http://[::1]:8080/", true},
		{"uri", "http://[2001:db8::7]/c=GB?objectClass?one", true},
		{"uri", "http://[v7.fe80::a+en1]/", true}, // an IPvFuture
		{"uri", "http://127.0.0.1/", true},
		{"uri", "http://example.com:/", true}, // an empty port
		{"uri", "file:///etc/hosts", true},    // an empty host
		{"uri", "mailto:ada@example.com", true},
		{"uri", "urn:isbn:0451450523", true},
		{"uri", "tel:+1-816-555-1212", true},
		{"uri", "a:", true},
		{"uri", "x-y.z+1:rootless/path", true},
		{"uri", "http://a/<>", false},
		{"uri", "http://a/b c", false},
		{"uri", "https://exämple.com/", false}, // non-ASCII: an IRI, not a URI
		{"uri", "https://example.com/café", false},
		{"uri", "https://example.com/%E9%", false},
		{"uri", "https://example.com/%zz", false},
		{"uri", "https://example.com/a#b#c", false},
		{"uri", "https://example.com/\"q\"", false},
		{"uri", "https://example.com/{x}", false},
		{"uri", "https://example.com/a\\b", false},
		{"uri", "http://a@b@c/", false},
		{"uri", "http://example.com:80a/", false},
		{"uri", "http://[::1/", false},
		{"uri", "http://[::1]x/", false},
		{"uri", "http://[fe80::1%25en0]/", false}, // a zone: RFC 6874, not RFC 3986
		{"uri", "http://[1.2.3.4]/", false},
		{"uri", "http://[v.x]/", false},
		{"uri", "//example.com/ada", false}, // a relative reference
		{"uri", "/ada", false},
		{"uri", "example.com/ada", false},
		{"uri", "1http://example.com/", false},
		{"uri", ":no-scheme", false},
		{"uri", "not a uri", false},
		{"uri", "", false},
		// RFC 5322 addr-spec.
		{"email", "ada@example.com", true},
		{"email", "ada.lovelace+forms@mail.example.co.uk", true},
		{"email", "!#$%&'*+-/=?^_`{|}~@example.com", true},
		{"email", "ada@localhost", true},
		{"email", `"ada"@example.com`, true},
		{"email", `"ada lovelace"@example.com`, true},
		{"email", `"a@b\"c"@example.com`, true},
		{"email", `""@example.com`, true},
		{"email", "ada@[192.0.2.1]", true},
		{"email", "ada@[IPv6:2001:db8::1]", true},
		{"email", "ada", false},
		{"email", "ada@", false},
		{"email", "@example.com", false},
		{"email", "ada@@example.com", false},
		{"email", "ada@b@example.com", false},
		{"email", "ada..b@example.com", false},
		{"email", ".ada@example.com", false},
		{"email", "ada.@example.com", false},
		{"email", "ada@example..com", false},
		{"email", "ada@example.com.", false},
		{"email", "ada lovelace@example.com", false},
		{"email", " ada@example.com", false},
		{"email", "Ada <ada@example.com>", false},
		{"email", "ada@example.com (Ada)", false},
		{"email", "é@example.com", false}, // non-ASCII: idn-email, not email
		{"email", "ada@exämple.com", false},
		{"email", `"ada@example.com`, false},
		{"email", `"a"b"@example.com`, false},
		{"email", "ada@[192.0.2.1", false},
		{"email", "ada@[a[b]", false},
		{"email", "ada@exa(mple).com", false},
		{"email", "", false},
		// A format the schema does not name holds any string.
		{"color", "not checked", true},
	} {
		schema := `{"type":"object","properties":{"f":{"type":"string","format":` + quote(tc.format) + `}}}`
		got := reference.ContentProblems(json.RawMessage(schema), json.RawMessage(`{"f":`+quote(tc.value)+`}`))
		switch {
		case tc.valid && got != nil:
			t.Errorf("format %s, %s: %q, want valid", tc.format, quote(tc.value), got)
		case !tc.valid && (len(got) != 1 || !strings.Contains(got[0], "not of the format")):
			t.Errorf("format %s, %s: %q, want one problem saying it is not of the format", tc.format, quote(tc.value), got)
		}
	}
}

// TestContentNumbers judges integers and numbers by value: an integer is
// any number without a fraction within int64, however spelt; a number any
// JSON number a double holds; bounds are inclusive.
func TestContentNumbers(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"i":{"type":"integer"},
		"n":{"type":"number"},
		"bi":{"type":"integer","minimum":-3,"maximum":10},
		"bn":{"type":"number","minimum":-0.5,"maximum":2.5e-1}}}`
	for _, tc := range []struct {
		content string
		want    string // a part of the one problem; "" for valid content
	}{
		{`{"i":36}`, ""},
		{`{"i":36.0}`, ""},
		{`{"i":3.6e1}`, ""},
		{`{"i":360e-1}`, ""},
		{`{"i":-0.0}`, ""},
		{`{"i":9223372036854775807}`, ""},
		{`{"i":-9223372036854775808}`, ""},
		{`{"i":9223372036854775807.0}`, ""},
		{`{"i":9223372036854775808}`, "beyond int64"},
		{`{"i":-9223372036854775809}`, "beyond int64"},
		{`{"i":1000000000000000000000000000000}`, "beyond int64"}, // 10^30, a whole number the schema's integer cannot hold
		{`{"i":1e30}`, "beyond int64"},
		{`{"i":36.5}`, "want an integer"},
		{`{"i":3.65e1}`, "want an integer"},
		{`{"i":"36"}`, "want an integer"},
		{`{"i":true}`, "want an integer"},
		{`{"i":[36]}`, "want an integer"},
		{`{"n":0.1}`, ""},
		{`{"n":-1.5e-300}`, ""},
		{`{"n":1.7976931348623157e308}`, ""},
		{`{"n":36}`, ""},
		{`{"n":1e400}`, "beyond a double"},
		{`{"n":-1e400}`, "beyond a double"},
		{`{"n":"0.1"}`, "want a number"},
		{`{"n":null}`, "want a number"},
		{`{"bi":-3}`, ""}, // the bounds are inclusive
		{`{"bi":10}`, ""},
		{`{"bi":10.0}`, ""},
		{`{"bi":1e1}`, ""},
		{`{"bi":-4}`, "below the minimum -3"},
		{`{"bi":11}`, "above the maximum 10"},
		{`{"bn":-0.5}`, ""},
		{`{"bn":0.25}`, ""},
		{`{"bn":25e-2}`, ""},
		{`{"bn":-0.50000000000000000001}`, "below the minimum -0.5"}, // exactly, not as a double
		{`{"bn":0.25000000000000000001}`, "above the maximum 2.5e-1"},
	} {
		got := reference.ContentProblems(json.RawMessage(schema), json.RawMessage(tc.content))
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("content %s: %q, want no problem", tc.content, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("content %s: %q, want one problem saying %q", tc.content, got, tc.want)
		}
	}
}

// TestContentBoundsInclusive: a value at each bound of a string or an
// array is valid, one past it is not; lengths count code points.
func TestContentBoundsInclusive(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"s":{"type":"string","minLength":2,"maxLength":5},
		"a":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["x","y","z"]}},
		"p":{"type":"string","pattern":"^[A-Z]{3}$"},
		"u":{"type":"string","pattern":"b"}}}`
	for _, tc := range []struct {
		content string
		want    string
	}{
		{`{"s":"Ad"}`, ""},
		{`{"s":"Ada🧮!"}`, ""}, // five code points, six UTF-16 units
		{`{"s":"A"}`, "shorter than minLength 2"},
		{`{"s":"Adaline"}`, "longer than maxLength 5"},
		{`{"s":"Ada🧮🧮!"}`, "longer than maxLength 5"},
		{`{"a":["x"]}`, ""},
		{`{"a":["x","z"]}`, ""},
		{`{"a":[]}`, "fewer than minItems 1"},
		{`{"a":["x","y","z"]}`, "more than maxItems 2"},
		{`{"p":"ADA"}`, ""},
		{`{"p":"Ada"}`, "does not match the pattern"},
		{`{"p":"ADAL"}`, "does not match the pattern"},
		{`{"u":"abc"}`, ""}, // unanchored, as ECMA-262's test is
		{`{"u":"ac"}`, "does not match the pattern"},
	} {
		got := reference.ContentProblems(json.RawMessage(schema), json.RawMessage(tc.content))
		switch {
		case tc.want == "" && got != nil:
			t.Errorf("content %s: %q, want no problem", tc.content, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("content %s: %q, want one problem saying %q", tc.content, got, tc.want)
		}
	}
}

// quote writes s as a JSON string.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
