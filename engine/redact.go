package engine

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/petctl/petctl/spec"
)

// keyNames are where requests carry credentials by the document's own
// word, read from where spec.Scheme says each scheme takes its credential.
// params are the lower-cased names of every scheme's parameter, whatever
// its place, so that a key put in the query by mistake is not logged
// either; headers are Authorization and the apiKey header names; cookies
// the apiKey cookie names.
func keyNames(s *spec.Spec) (params, headers, cookies []string) {
	headers = []string{"Authorization"}
	for _, sc := range s.Schemes {
		if sc.Param == "" {
			continue
		}
		if n := strings.ToLower(sc.Param); !slices.Contains(params, n) {
			params = append(params, n)
		}
		switch {
		case sc.In == "header" && !slices.ContainsFunc(headers, func(h string) bool { return strings.EqualFold(h, sc.Param) }):
			headers = append(headers, sc.Param)
		case sc.In == "cookie" && !slices.Contains(cookies, sc.Param):
			cookies = append(cookies, sc.Param)
		}
	}
	slices.Sort(params)
	slices.Sort(cookies)
	return params, headers, cookies
}

// scrub replaces in msg every credential r carries by REDACTED: a document
// that also declares its key parameter, with a pattern, gets a validation
// message that quotes the key, and the message goes to the client and the
// logs. Quoted values are always replaced; bare ones from 4 bytes on, so
// that a one-character token does not mangle the message.
func (s *Server) scrub(r *http.Request, msg string) string {
	var vals []string
	add := func(v string) {
		if v = strings.TrimSpace(v); v != "" {
			vals = append(vals, v)
		}
	}
	for _, h := range s.keyHeaders {
		for _, v := range r.Header.Values(h) {
			add(v)
			if scheme, token, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
				add(token)
				if strings.EqualFold(scheme, "Basic") {
					// The password can be quoted decoded, too.
					if user, password, f := basicCredential(v); f == "" {
						add(user + ":" + password)
						add(password)
					}
				}
			}
		}
	}
	for _, c := range s.keyCookies {
		for _, ck := range r.CookiesNamed(c) {
			add(ck.Value)
		}
	}
	for rest := r.URL.RawQuery; rest != ""; {
		var p string
		p, rest, _ = cutPair(rest)
		name, v, _ := strings.Cut(p, "=")
		if !secretName(name, s.keyParams) {
			continue
		}
		add(v)
		if u, err := url.QueryUnescape(v); err == nil {
			add(u)
		}
	}
	// Longest first, so that a key that contains another is replaced whole.
	slices.SortFunc(vals, func(a, b string) int { return len(b) - len(a) })
	for _, v := range vals {
		msg = strings.ReplaceAll(msg, "'"+v+"'", "'REDACTED'")
		msg = strings.ReplaceAll(msg, `"`+v+`"`, `"REDACTED"`)
		if len(v) >= 4 {
			msg = strings.ReplaceAll(msg, v, "REDACTED")
		}
	}
	return msg
}

// redactQuery hides the values of parameters that may carry credentials:
// those named in keys (see keyNames) and those whose names look like one.
// Pairs are split at ';' as well as '&': Go refuses ';' (the request gets a
// 400), but what follows it is still a credential to whoever reads the log.
func redactQuery(raw string, keys []string) string {
	// Most queries name no secret; they are kept as they are, unsplit, and
	// b stays nil until the first secret, when what came before is copied.
	var b []byte
	for at := 0; ; {
		p, _, sep := cutPair(raw[at:])
		if name, _, _ := strings.Cut(p, "="); secretName(name, keys) {
			if b == nil {
				b = append(make([]byte, 0, len(raw)+len("REDACTED")), raw[:at]...)
			}
			b = append(append(b, name...), "=REDACTED"...)
		} else if b != nil {
			b = append(b, p...)
		}
		if sep == 0 {
			break
		}
		if b != nil {
			b = append(b, sep)
		}
		at += len(p) + 1
	}
	q := raw
	if b != nil {
		q = string(b)
	}
	if len(q) > 256 {
		q = q[:256] + "…"
	}
	return q
}

// cutPair cuts the first name=value pair off a raw query. Pairs end at '&'
// or at ';': Go refuses ';', but what follows it may still be a credential.
// sep is the separator that ended the pair, 0 for the last one.
func cutPair(raw string) (pair, rest string, sep byte) {
	i := strings.IndexAny(raw, "&;")
	if i < 0 {
		return raw, "", 0
	}
	return raw[:i], raw[i+1:], raw[i]
}

// secretName reports whether a query parameter's name (as sent, possibly
// percent-encoded) is one of keys, looks as if its value were a credential,
// or cannot be decoded. Names are compared without regard to case: redacting a value
// that was no key costs less than logging one that was.
func secretName(name string, keys []string) bool {
	if strings.ContainsAny(name, "%+") {
		u, err := url.QueryUnescape(name)
		if err != nil {
			// Go drops such a pair unread, but it may be a credential
			// whose name was mangled on its way here.
			return true
		}
		name = u
	}
	l := strings.ToLower(name)
	if slices.Contains(keys, l) {
		return true
	}
	for _, secret := range []string{"key", "token", "secret", "password", "auth", "signature", "bearer", "credential", "session", "jwt"} {
		if strings.Contains(l, secret) {
			return true
		}
	}
	return false
}
