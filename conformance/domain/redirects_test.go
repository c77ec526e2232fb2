package domain_test

import (
	"strings"
	"testing"

	"github.com/petctl/petctl/conformance/domain"
)

func TestValidateRedirects(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // the problems, as Problem.String gives them
	}{
		{
			name: "valid YAML, status 301 when not given",
			file: "- {from: example.com, to: www.example.com}\n- {from: old.example.com, to: www.example.com, status: 308}\n",
		},
		{
			name: "valid JSON",
			file: `[{"from": "example.com", "to": "www.example.com", "status": 302},` + "\n" + `{"from": "docs.example.org", "to": "docs.example.com", "status": 307}]`,
		},
		{
			name: "an empty list",
			file: "[]\n",
		},
		{
			name: "host names that are not valid",
			file: "- from: exa_mple.com\n  to: https://www.example.com/\n- from: localhost\n  to: 192.0.2.1\n- from: -a.example.com\n  to: www.example.com:443\n",
			want: []string{
				`1: entry 1: from: "exa_mple.com": the label "exa_mple" has '_': a host name has only letters, digits and hyphens`,
				`2: entry 1: to: "https://www.example.com/" is a URL: want only its host name, such as docs.example.com`,
				`3: entry 2: from: "localhost" is a single label: want a full host name such as docs.example.com`,
				`4: entry 2: to: "192.0.2.1" is an IP address: want a host name`,
				`5: entry 3: from: "-a.example.com": the label "-a" starts or ends with a hyphen`,
				`6: entry 3: to: "www.example.com:443" has a port: want only the host name www.example.com`,
			},
		},
		{
			name: "statuses",
			file: "- {from: a.example.com, to: www.example.com, status: 404}\n- {from: b.example.com, to: www.example.com, status: permanent}\n- {from: c.example.com, to: www.example.com, status: 307}\n- {from: d.example.com, to: www.example.com, status: }\n",
			want: []string{
				`1: entry 1: status 404 is not a redirect status: want 301, 302, 307 or 308 (301 when not given)`,
				`2: entry 2: status permanent is not a redirect status: want 301, 302, 307 or 308 (301 when not given)`,
				`4: entry 4: status: want a number, not nothing`,
			},
		},
		{
			name: "a from-domain given twice, case and final dot aside",
			file: "- {from: example.com, to: www.example.com}\n- {from: shop.example.com, to: www.example.com}\n- {from: EXAMPLE.com., to: blog.example.com}\n",
			want: []string{`3: entry 3: example.com is already redirected by entry 1 (line 1)`},
		},
		{
			name: "a domain redirected to itself",
			file: "- {from: example.com, to: Example.com}\n",
			want: []string{`1: entry 1: a loop: example.com → example.com`},
		},
		{
			name: "a loop of two, reported once",
			file: "- {from: a.example.com, to: b.example.com}\n- {from: b.example.com, to: a.example.com}\n",
			want: []string{`1: entry 1: a loop: a.example.com → b.example.com → a.example.com (entries 1, 2)`},
		},
		{
			name: "a chain, and an entry that leads into a loop",
			file: "- {from: a.example.com, to: b.example.com}\n- {from: b.example.com, to: c.example.com}\n" +
				"- {from: x.example.com, to: y.example.com}\n- {from: y.example.com, to: z.example.com}\n- {from: z.example.com, to: y.example.com}\n",
			want: []string{
				`1: entry 1: a chain: a.example.com → b.example.com → c.example.com (entries 1, 2); point a.example.com at c.example.com directly`,
				`3: entry 3: leads into a loop: x.example.com → y.example.com → z.example.com → y.example.com (entries 3, 4, 5)`,
				`4: entry 4: a loop: y.example.com → z.example.com → y.example.com (entries 4, 5)`,
			},
		},
		{
			name: "keys missing, unknown or repeated",
			file: "- from: a.example.com\n  stauts: 302\n- to: b.example.com\n  to: c.example.com\n",
			want: []string{
				`1: entry 1: to is missing`,
				`2: entry 1: unknown key "stauts": an entry has from, to and status`,
				`3: entry 2: from is missing`,
				`4: entry 2: to is given twice`,
			},
		},
		{
			name: "an entry that is not a mapping",
			file: "- a.example.com\n- [b.example.com, c.example.com]\n",
			want: []string{
				`1: entry 1: want {from, to, status}, not the value "a.example.com"`,
				`2: entry 2: want {from, to, status}, not a list`,
			},
		},
		{
			name: "not a list",
			file: "from: a.example.com\nto: b.example.com\n",
			want: []string{`1: want a list of {from, to, status}, not a mapping`},
		},
		{
			name: "empty",
			file: "",
			want: []string{`the file is empty: want a list of {from, to, status}`},
		},
		{
			name: "not YAML",
			file: "- {from: a.example.com\n",
			want: []string{`2: not YAML or JSON: did not find expected ',' or '}'`},
		},
		{
			name: "an internationalised name is compared in its ASCII form",
			file: "- {from: bücher.example, to: www.example.com}\n- {from: xn--bcher-kva.example, to: shop.example.com}\n",
			want: []string{`2: entry 2: xn--bcher-kva.example is already redirected by entry 1 (line 1)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := domain.ValidateRedirects([]byte(tt.file))
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems:\n%s\nwant %d:\n%s", len(got), strings.Join(got, "\n"), len(tt.want), strings.Join(tt.want, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("problem %d:\n got %s\nwant %s", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestValidateRedirectsEntries: a valid file's entries, normalised, with
// the default status.
func TestValidateRedirectsEntries(t *testing.T) {
	entries, problems := domain.ValidateRedirects([]byte("- {from: Example.COM., to: www.example.com}\n- {from: old.example.com, to: www.example.com, status: 308}\n"))
	if len(problems) > 0 {
		t.Fatalf("problems: %v", problems)
	}
	want := []domain.Redirect{
		{From: "example.com", To: "www.example.com", Status: domain.DefaultRedirectStatus, Line: 1},
		{From: "old.example.com", To: "www.example.com", Status: 308, Line: 2},
	}
	if len(entries) != len(want) {
		t.Fatalf("got %+v, want %+v", entries, want)
	}
	for i := range want {
		if entries[i] != want[i] {
			t.Errorf("entry %d: got %+v, want %+v", i+1, entries[i], want[i])
		}
	}
}

// TestValidateRedirectsBounded: a file over the limit is refused unread.
func TestValidateRedirectsBounded(t *testing.T) {
	_, problems := domain.ValidateRedirects([]byte(strings.Repeat("#", domain.MaxRedirectsFile+1)))
	if len(problems) != 1 || !strings.Contains(problems[0].Msg, "larger than") {
		t.Errorf("got %v, want the size problem", problems)
	}
}
