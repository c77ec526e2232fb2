package store

import (
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
