// Package baseline is the yardstick petctl's throughput is measured
// against: a plain net/http server for the Petstore's list and create with a
// bearer check and an in-memory store, and no validation of anything beyond
// what decoding needs. It is what a developer would write by hand in an
// afternoon, kept fast on purpose.
package baseline

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Pet is one animal, as the Petstore document describes it.
type Pet struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	CategoryID int64  `json:"categoryId"`
	Status     string `json:"status,omitempty"`
}

// Encoding is how the list body is made per request.
type Encoding int

const (
	// Marshal encodes the page with encoding/json on every request, as a
	// hand-written handler usually does.
	Marshal Encoding = iota
	// Cached keeps each record's JSON from when it was stored and joins a
	// page from it, as petctl does: the strictest yardstick.
	Cached
)

// ParseEncoding reads "marshal" or "cached".
func ParseEncoding(s string) (Encoding, bool) {
	switch s {
	case "marshal":
		return Marshal, true
	case "cached":
		return Cached, true
	}
	return 0, false
}

func (e Encoding) String() string {
	if e == Cached {
		return "cached"
	}
	return "marshal"
}

// Server serves GET and POST /v1/pets. It is safe for concurrent use.
type Server struct {
	key      []byte
	encoding Encoding
	mu       sync.RWMutex
	pets     []Pet
	raw      [][]byte // each pet's JSON, for Cached
	nextID   int64
}

// New returns a Server holding pets that accepts the bearer token key.
func New(pets []Pet, key string, enc Encoding) *Server {
	s := &Server{key: []byte(key), encoding: enc, nextID: 1}
	for _, p := range pets {
		s.add(p)
	}
	return s
}

// LoadPets decodes a JSON array of pets (the fixtures file).
func LoadPets(data []byte) ([]Pet, error) {
	var pets []Pet
	err := json.Unmarshal(data, &pets)
	return pets, err
}

func (s *Server) add(p Pet) Pet {
	if p.ID == 0 {
		p.ID = s.nextID
	}
	if p.ID >= s.nextID {
		s.nextID = p.ID + 1
	}
	s.pets = append(s.pets, p)
	if s.encoding == Cached {
		b, _ := json.Marshal(p)
		s.raw = append(s.raw, b)
	}
	return p
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/pets" {
		writeError(w, http.StatusNotFound, "not_found")
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="baseline"`)
		writeError(w, http.StatusUnauthorized, "unauthorized")
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.list(w, r)
	case http.MethodPost:
		s.create(w, r)
	default:
		w.Header().Set("Allow", "GET, POST")
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed")
	}
}

func (s *Server) authorized(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(token), s.key) == 1
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeError(w, http.StatusBadRequest, "validation_failed")
			return
		}
		limit = n
	}
	status := q.Get("status")
	s.mu.RLock()
	var body []byte
	if s.encoding == Cached {
		var b bytes.Buffer
		b.WriteByte('[')
		n := 0
		for i := 0; i < len(s.pets) && n < limit; i++ {
			if status != "" && s.pets[i].Status != status {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			b.Write(s.raw[i])
			n++
		}
		b.WriteByte(']')
		body = b.Bytes()
	} else {
		page := make([]Pet, 0, limit)
		for i := 0; i < len(s.pets) && len(page) < limit; i++ {
			if status == "" || s.pets[i].Status == status {
				page = append(page, s.pets[i])
			}
		}
		body, _ = json.Marshal(page)
	}
	s.mu.RUnlock()
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, "malformed_json")
		return
	}
	var p Pet
	if err := json.Unmarshal(data, &p); err != nil || p.Name == "" {
		writeError(w, http.StatusBadRequest, "validation_failed")
		return
	}
	p.ID = 0
	s.mu.Lock()
	p = s.add(p)
	s.mu.Unlock()
	body, _ := json.Marshal(p)
	writeJSON(w, http.StatusCreated, body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code string) {
	body, _ := json.Marshal(map[string]any{"code": code, "message": http.StatusText(status), "status": status})
	writeJSON(w, status, body)
}
