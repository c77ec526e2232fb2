package store

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkStore measures the store's API on the Petstore's fixtures,
// without HTTP: what a create, a read and a list cost the data layer.
func BenchmarkStore(b *testing.B) {
	c := openPetstore(b).store.colls["pets"]
	doc, err := DecodeStrict([]byte(`{"name":"Bench","categoryId":3,"status":"available"}`))
	if err != nil {
		b.Fatal(err)
	}
	obj := doc.(map[string]any)
	sold := Query{Filters: map[string][]string{"status": {"sold"}}, Limit: 100}
	b.Run("create", func(b *testing.B) {
		b.ReportAllocs()
		now := time.Now()
		for b.Loop() {
			if _, err := c.Create(obj, Write{Now: now}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := c.Get(nil, "42"); !ok {
				b.Fatal("no record 42")
			}
		}
	})
	b.Run("page20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p := c.Page(Query{Limit: 20}); len(p.Items) != 20 {
				b.Fatalf("%d items", len(p.Items))
			}
		}
	})
	b.Run("pageSold100", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if p := c.Page(sold); len(p.Items) == 0 {
				b.Fatal("no sold pets")
			}
		}
	})
}

// BenchmarkCreateJournal measures concurrent creates in the memory store
// and in a state file under each sync mode: what the durable store costs a
// create beside the memory store (issue 22's target: with sync interval,
// at least 0.7× the memory store's throughput).
func BenchmarkCreateJournal(b *testing.B) {
	for _, mode := range []SyncMode{"memory", SyncNever, SyncInterval, SyncAlways} {
		b.Run(string(mode), func(b *testing.B) {
			d := openPetstore(b)
			if mode != "memory" {
				j, err := OpenFile(filepath.Join(b.TempDir(), "state.db"), FileOptions{Sync: mode})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = j.Close() })
				if _, err := d.store.Attach(j, originOf(d.spec), true); err != nil {
					b.Fatal(err)
				}
			}
			c := d.store.colls["pets"]
			now := time.Now()
			b.ReportAllocs()
			b.SetParallelism(8) // 16 connections on 2 cores, as crudcmp's load
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					doc, _ := DecodeStrict([]byte(`{"name":"Bench","categoryId":3,"status":"available"}`))
					if _, err := c.Create(doc, Write{Now: now}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkTableDelete deletes, one by one, from a million records that
// share one filter value, as a status every record has: the index list of
// that value is the whole table. The deletes go all over the list (a
// stride of 997), as a client's would; a table that runs out is built again,
// untimed.
func BenchmarkTableDelete(b *testing.B) {
	const n = 1_000_000
	var s *table
	build := func() {
		s = newTable(true, false, []string{"color"})
		s.mu.Lock()
		defer s.mu.Unlock()
		for seq := int64(1); seq <= n; seq++ {
			s.insertLocked(&entry{seq: seq, raw: []byte(`{}`), vals: []string{"red"}, has: 1})
		}
	}
	build()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%n == 0 {
			b.StopTimer()
			build()
			b.StartTimer()
		}
		seq := int64(i%n*997%n + 1) // 997 is prime to n: every record once
		s.mu.Lock()
		pos, ok := s.findLocked("", strconv.FormatInt(seq, 10))
		if !ok {
			b.Fatalf("record %d is not there", seq)
		}
		s.deleteLocked(pos, &entry{seq: seq, vals: []string{"red"}, has: 1})
		s.compactIfWorthIt()
		s.mu.Unlock()
	}
}

// BenchmarkParseFixtures measures the serial part of loading a fixtures
// file: delimiting its records (splitRecords) before they are built on
// every core. A million animals shaped like bench/genpets writes them.
func BenchmarkParseFixtures(b *testing.B) {
	s := openPetstore(b).store
	n := 1000000
	var data []byte
	data = append(data, "[\n"...)
	for i := 1; i <= n; i++ {
		if i > 1 {
			data = append(data, ",\n"...)
		}
		data = append(data, `{"id":`...)
		data = strconv.AppendInt(data, int64(i), 10)
		data = append(data, `,"name":"Pet \"`...)
		data = strconv.AppendInt(data, int64(i%977), 10)
		data = append(data, `\"","categoryId":3,"tags":["a","b"],"status":"available"}`...)
	}
	data = append(data, "\n]\n"...)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		fx, err := s.Parse([]FixtureFile{{Name: "pets.json", Data: data}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if got := fx.sets["pets"].len(); got != n {
			b.Fatalf("%d records", got)
		}
	}
}
