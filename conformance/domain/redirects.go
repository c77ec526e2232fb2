package domain

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"
)

// DefaultRedirectStatus is the status of a redirect entry that gives none:
// the one the description's form shows.
const DefaultRedirectStatus = 301

// RedirectStatuses are the statuses a redirect entry may have: the
// redirects that keep the path (permanent 301 and 308, temporary 302 and 307).
var RedirectStatuses = []int{301, 302, 307, 308}

// MaxRedirectsFile bounds the size of a redirects file that is read.
const MaxRedirectsFile = 1 << 20

// Redirect is one entry of a redirects file.
type Redirect struct {
	From   string // host name, normalised (lower case, ASCII)
	To     string
	Status int
	Line   int // where the entry starts in the file
}

// Problem is one thing wrong in a redirects file, with where it is.
type Problem struct {
	Line  int // 0 when it is the file as a whole
	Entry int // 1-based; 0 when it is the file as a whole
	Msg   string
}

func (p Problem) String() string {
	switch {
	case p.Entry > 0:
		return fmt.Sprintf("%d: entry %d: %s", p.Line, p.Entry, p.Msg)
	case p.Line > 0:
		return fmt.Sprintf("%d: %s", p.Line, p.Msg)
	}
	return p.Msg
}

// redirectKeys are the keys of an entry.
var redirectKeys = []string{"from", "to", "status"}

// ValidateRedirects reads a redirects file (a YAML or JSON list of
// {from, to, status}) and returns its entries and every problem: a host name
// that is not valid, a status that is not a redirect, an unknown or repeated
// key, a from-domain given twice, a loop or a chain.
func ValidateRedirects(data []byte) ([]Redirect, []Problem) {
	if len(data) > MaxRedirectsFile {
		return nil, []Problem{{Msg: fmt.Sprintf("the file is larger than %d bytes", MaxRedirectsFile)}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		var le *yaml.LoadError
		if errors.As(err, &le) {
			return nil, []Problem{{Line: le.Mark.Line, Msg: "not YAML or JSON: " + le.Message}}
		}
		return nil, []Problem{{Msg: "not YAML or JSON: " + err.Error()}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, []Problem{{Msg: "the file is empty: want a list of {from, to, status}"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		return nil, []Problem{{Line: root.Line, Msg: "want a list of {from, to, status}, not " + nodeKind(root)}}
	}
	var (
		entries  []Redirect
		problems []Problem
		valid    []bool // whether entry i has a valid from and to
	)
	for i, n := range root.Content {
		e, ps := readRedirect(n, i+1)
		entries = append(entries, e)
		problems = append(problems, ps...)
		valid = append(valid, e.From != "" && e.To != "")
	}
	problems = append(problems, redirectGraphProblems(entries, valid)...)
	slices.SortStableFunc(problems, func(a, b Problem) int { return a.Line - b.Line })
	return entries, problems
}

// readRedirect reads one entry; From or To stays empty when it is not valid.
func readRedirect(n *yaml.Node, entry int) (Redirect, []Problem) {
	e := Redirect{Line: n.Line, Status: DefaultRedirectStatus}
	var ps []Problem
	bad := func(line int, format string, args ...any) {
		ps = append(ps, Problem{Line: line, Entry: entry, Msg: fmt.Sprintf(format, args...)})
	}
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "want {from, to, status}, not %s", nodeKind(n))
		return e, ps
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		switch {
		case !slices.Contains(redirectKeys, key):
			bad(k.Line, "unknown key %q: an entry has from, to and status", key)
			continue
		case seen[key]:
			bad(k.Line, "%s is given twice", key)
			continue
		}
		seen[key] = true
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			want := "a host name"
			if key == "status" {
				want = "a number"
			}
			bad(v.Line, "%s: want %s, not %s", key, want, nodeKind(v))
			continue
		}
		switch key {
		case "from", "to":
			host, err := NormalizeHost(v.Value)
			if err != nil {
				bad(v.Line, "%s: %v", key, err)
				continue
			}
			if key == "from" {
				e.From = host
			} else {
				e.To = host
			}
		case "status":
			st, err := strconv.Atoi(v.Value)
			if err != nil || !slices.Contains(RedirectStatuses, st) {
				bad(v.Line, "status %s is not a redirect status: want %s (%d when not given)", v.Value, statusList(), DefaultRedirectStatus)
				continue
			}
			e.Status = st
		}
	}
	for _, key := range []string{"from", "to"} {
		if !seen[key] {
			bad(n.Line, "%s is missing", key)
		}
	}
	return e, ps
}

// redirectGraphProblems finds from-domains given twice, loops (a → b → a,
// and a → a) and chains (a → b → c, which costs every visitor of a two
// redirects: point a at c). A loop is reported once, at its first entry.
func redirectGraphProblems(entries []Redirect, valid []bool) []Problem {
	var ps []Problem
	byFrom := map[string]int{}
	for i, e := range entries {
		if e.From == "" {
			continue
		}
		if j, ok := byFrom[e.From]; ok {
			ps = append(ps, Problem{Line: e.Line, Entry: i + 1, Msg: fmt.Sprintf("%s is already redirected by entry %d (line %d)", e.From, j+1, entries[j].Line)})
			continue
		}
		byFrom[e.From] = i
	}
	for i, e := range entries {
		if !valid[i] || byFrom[e.From] != i {
			continue
		}
		path := []string{e.From}
		members := []int{i}
		cur := e.To
		loopAt := -1
		for {
			if k := slices.Index(path, cur); k >= 0 {
				loopAt = k
				path = append(path, cur)
				break
			}
			path = append(path, cur)
			j, ok := byFrom[cur]
			if !ok || !valid[j] {
				break
			}
			members = append(members, j)
			cur = entries[j].To
		}
		hops := strings.Join(path, " → ")
		switch {
		case loopAt == 0:
			if slices.Min(members) == i { // once per loop
				ps = append(ps, Problem{Line: e.Line, Entry: i + 1, Msg: fmt.Sprintf("a loop: %s%s", hops, entriesText(members))})
			}
		case loopAt > 0:
			ps = append(ps, Problem{Line: e.Line, Entry: i + 1, Msg: fmt.Sprintf("leads into a loop: %s%s", hops, entriesText(members))})
		case len(path) > 2:
			ps = append(ps, Problem{Line: e.Line, Entry: i + 1, Msg: fmt.Sprintf("a chain: %s%s; point %s at %s directly", hops, entriesText(members), e.From, path[len(path)-1])})
		}
	}
	return ps
}

func entriesText(members []int) string {
	if len(members) < 2 {
		return ""
	}
	s := make([]string, len(members))
	for i, m := range members {
		s[i] = strconv.Itoa(m + 1)
	}
	return " (entries " + strings.Join(s, ", ") + ")"
}

func statusList() string {
	s := make([]string, len(RedirectStatuses))
	for i, st := range RedirectStatuses {
		s[i] = strconv.Itoa(st)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("the value %q", n.Value)
}
