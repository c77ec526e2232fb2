package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/engine/store"
	"github.com/petctl/petctl/spec"
)

func benchServer(b *testing.B) *Server {
	b.Helper()
	s, err := spec.Default()
	if err != nil {
		b.Fatal(err)
	}
	data, _ := readFixture("petstore/pets.json")
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: data}},
		Logger: slog.New(NewTextHandler(io.Discard, nil))}) // serve's handler
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// BenchmarkHandler measures the whole pipeline in-process, without the network.
func BenchmarkHandler(b *testing.B) {
	srv := benchServer(b)
	cases := []struct {
		name, method, url, body string
	}{
		{"list20", "GET", "/v1/pets?limit=20", ""},
		{"list100", "GET", "/v1/pets?limit=100", ""},
		{"listSold100", "GET", "/v1/pets?status=sold&limit=100", ""},
		{"read", "GET", "/v1/pets/42", ""},
		{"create", "POST", "/v1/pets", `{"name":"Bench","categoryId":3,"status":"available"}`},
		{"unauthorized", "GET", "/v1/pets", ""},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var body io.Reader
				if c.body != "" {
					body = strings.NewReader(c.body)
				}
				r := httptest.NewRequest(c.method, c.url, body)
				if c.name != "unauthorized" {
					r.Header.Set("Authorization", "Bearer "+testKey)
				}
				if c.body != "" {
					r.Header.Set("Content-Type", "application/json")
				}
				w := httptest.NewRecorder()
				srv.ServeHTTP(w, r)
				if w.Code >= 500 {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

// BenchmarkValidation measures libopenapi-validator's costs that the design avoids or pays.
func BenchmarkValidation(b *testing.B) {
	srv := benchServer(b)
	list := srv.spec.Operation("listPets")
	get := srv.spec.Operation("getPet")
	items := srv.colls["pets"].data.Page(store.Query{Limit: 20}).Items
	body20 := joinArray(items)
	items100 := srv.colls["pets"].data.Page(store.Query{Limit: 100}).Items
	body100 := joinArray(items100)
	hdr := http.Header{"Content-Type": {"application/json"}}
	b.Run("request/list", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r := httptest.NewRequest("GET", "/v1/pets?limit=20", nil)
			if ps := srv.val.Request(r, list); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("request/create", func(b *testing.B) {
		create := srv.spec.Operation("createPet")
		for i := 0; i < b.N; i++ {
			r := httptest.NewRequest("POST", "/v1/pets", strings.NewReader(`{"name":"Bench","categoryId":3,"status":"available"}`))
			r.Header.Set("Content-Type", "application/json")
			if ps := srv.val.Request(r, create); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("response/list20", func(b *testing.B) {
		r := httptest.NewRequest("GET", "/v1/pets?limit=20", nil)
		for i := 0; i < b.N; i++ {
			if ps := srv.val.Response(r, list, 200, hdr, body20); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("response/list100", func(b *testing.B) {
		r := httptest.NewRequest("GET", "/v1/pets?limit=100", nil)
		for i := 0; i < b.N; i++ {
			if ps := srv.val.Response(r, list, 200, hdr, body100); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("response/read", func(b *testing.B) {
		r := httptest.NewRequest("GET", "/v1/pets/1", nil)
		for i := 0; i < b.N; i++ {
			if ps := srv.val.Response(r, get, 200, hdr, items[0]); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("record/describe", func(b *testing.B) {
		c := srv.colls["pets"]
		for i := 0; i < b.N; i++ {
			if ps := srv.val.Record(c.def.Item, items[i%20]); ps != nil {
				b.Fatal(ps)
			}
		}
	})
	b.Run("decodeStrict", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := store.DecodeStrict(items[i%20]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonUnmarshal", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.NewDecoder(bytes.NewReader(items[i%20])).Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkCompiledRecord(b *testing.B) {
	srv := benchServer(b)
	rs, err := srv.val.CompileRecordSchema(srv.colls["pets"].def.Item)
	if err != nil {
		b.Fatal(err)
	}
	items := srv.colls["pets"].data.Page(store.Query{Limit: 20}).Items
	docs := make([]any, len(items))
	for i, it := range items {
		json.Unmarshal(it, &docs[i])
	}
	b.Run("validateDecoded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := rs.Validate(docs[i%20]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCRUDHandler measures replace, merge patch and delete in-process,
// on the Petstore's animals with those operations added
// (fixtures/petstore-crud.yaml), beside the create they are compared with.
func BenchmarkCRUDHandler(b *testing.B) {
	s, err := spec.Load("../fixtures/petstore-crud.yaml")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := New(Options{Spec: s, Keys: []string{testKey}, Generate: 50000,
		Logger: slog.New(NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	serve := func(b *testing.B, method, url, body string) *httptest.ResponseRecorder {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		r := httptest.NewRequest(method, url, rd)
		r.Header.Set("Authorization", "Bearer "+testKey)
		if body != "" {
			r.Header.Set("Content-Type", "application/json")
			if method == "PATCH" {
				r.Header.Set("Content-Type", "application/merge-patch+json")
			}
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code >= 300 {
			b.Fatalf("%s %s: %d %s", method, url, w.Code, w.Body)
		}
		return w
	}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			serve(b, "POST", "/v1/pets", `{"name":"Bench","categoryId":3,"status":"available"}`)
		}
	})
	b.Run("replace", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			serve(b, "PUT", "/v1/pets/42", `{"name":"Bench `+strconv.Itoa(i)+`","categoryId":3,"status":"available"}`)
		}
	})
	b.Run("patch", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			serve(b, "PATCH", "/v1/pets/43", `{"name":"Bench `+strconv.Itoa(i)+`"}`)
		}
	})
	b.Run("delete", func(b *testing.B) {
		// As many animals as deletes are created first, untimed: a run
		// may delete more than the store was generated with.
		b.StopTimer()
		ids := make([]string, b.N)
		for i := range ids {
			var created struct{ ID json.Number }
			w := serve(b, "POST", "/v1/pets", `{"name":"Doomed","categoryId":3,"status":"sold"}`)
			if err := json.Unmarshal(w.Body.Bytes(), &created); err != nil || created.ID == "" {
				b.Fatalf("create: %v, %s", err, w.Body)
			}
			ids[i] = created.ID.String()
		}
		b.ReportAllocs()
		b.StartTimer()
		for _, id := range ids {
			serve(b, "DELETE", "/v1/pets/"+id, "")
		}
	})
}

// BenchmarkRequestLine formats serve's request line through slog's text
// and JSON handlers and through NewTextHandler and NewJSONHandler, which
// serve uses.
func BenchmarkRequestLine(b *testing.B) {
	for _, c := range []struct {
		name    string
		handler slog.Handler
	}{
		{"slog", slog.NewTextHandler(io.Discard, nil)},
		{"petctl", NewTextHandler(io.Discard, nil)},
		{"slog-json", slog.NewJSONHandler(io.Discard, nil)},
		{"petctl-json", NewJSONHandler(io.Discard, nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
				r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/v1/pets"), slog.Int("status", 200),
					slog.String("latency", "41µs"), slog.Int("bytes", 2710), slog.String("query", "limit=20"),
					slog.String("operation", "listPets"))
				if err := c.handler.Handle(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
