package engine

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/petctl/petctl/spec"
)

// largeFixture is n animals shaped like bench/genpets writes them.
func largeFixture(n int) []byte {
	statuses := []string{`,"status":"available"`, `,"status":"pending"`, `,"status":"sold"`, ""}
	var b strings.Builder
	b.WriteString("[\n")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"Pet%d","categoryId":%d%s}`, i, i%977, 1+i%12, statuses[i*7%len(statuses)])
	}
	b.WriteString("\n]\n")
	return []byte(b.String())
}

// BenchmarkLoadFixtures measures start-up's share that grows with the
// fixtures: splitting, decoding, building, validating and indexing.
func BenchmarkLoadFixtures(b *testing.B) {
	s, err := spec.Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100000} {
		data := largeFixture(n)
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv, err := New(Options{Spec: s, Keys: []string{testKey}, Fixtures: []FixtureFile{{Name: "pets.json", Data: data}},
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					b.Fatal(err)
				}
				if got := srv.Collections()["pets"]; got != n {
					b.Fatalf("%d pets, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}

// BenchmarkGenerate measures start-up's share that grows with
// --generate: making the records, then building, validating and indexing
// them as fixtures.
func BenchmarkGenerate(b *testing.B) {
	s, err := spec.Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{100000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				srv, err := New(Options{Spec: s, Keys: []string{testKey}, Generate: n,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					b.Fatal(err)
				}
				if got := srv.Collections()["pets"]; got != n {
					b.Fatalf("%d pets, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/record")
		})
	}
}
