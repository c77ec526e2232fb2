package engine

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/petctl/petctl/spec"
)

// TestLatencyPercentiles: delays drawn from a shaped range have the
// percentiles it gives, stay within it, and repeat for the same seed.
func TestLatencyPercentiles(t *testing.T) {
	ms := time.Millisecond
	d := Delay{Min: 10 * ms, Max: 300 * ms, Percentiles: []Percentile{{Q: 0.5, D: 20 * ms}, {Q: 0.9, D: 60 * ms}, {Q: 0.99, D: 200 * ms}}}
	draw := func(seed int64, n int) []time.Duration {
		dc := newDice(seed)
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = d.draw(dc)
		}
		return out
	}
	got := draw(7, 20000)
	if again := draw(7, 20000); !slices.Equal(got, again) {
		t.Error("the same seed drew other delays")
	}
	sorted := slices.Sorted(slices.Values(got))
	if sorted[0] < d.Min || sorted[len(sorted)-1] > d.Max {
		t.Errorf("delays from %v to %v, outside %v", sorted[0], sorted[len(sorted)-1], d)
	}
	for _, p := range d.Percentiles {
		n, _ := slices.BinarySearch(sorted, p.D+1)
		if share := float64(n) / float64(len(sorted)); share < p.Q-0.01 || share > p.Q+0.01 {
			t.Errorf("%.3f of the delays are at most %v, want %.2f ± 0.01 (p%g)", share, p.D, p.Q, p.Q*100)
		}
	}
	if got, want := d.String(), "10ms..300ms (p50 20ms, p90 60ms, p99 200ms)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestLatencyPercentilesOverHTTP: a shaped delay holds the answer at
// least its minimum, and the log names the delay drawn.
func TestLatencyPercentilesOverHTTP(t *testing.T) {
	env := newPetstore(t, func(o *Options) {
		o.Latency = map[string]Delay{"listPets": {Min: 40 * time.Millisecond, Max: 60 * time.Millisecond, Percentiles: []Percentile{{Q: 0.5, D: 45 * time.Millisecond}}}}
	})
	start := time.Now()
	env.get("/pets")
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("listPets answered in %v, before its least delay of 40ms", d)
	}
	if !strings.Contains(env.log.String(), "injected") {
		t.Errorf("the log does not name the delay:\n%s", env.log)
	}
}

// TestLatencyPercentilesRefused: percentiles out of order or outside the
// range stop start-up at the latency key.
func TestLatencyPercentilesRefused(t *testing.T) {
	s, err := spec.Default()
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Millisecond
	_, err = New(Options{Spec: s, Keys: []string{testKey}, Latency: map[string]Delay{
		"listPets":  {Min: 10 * ms, Max: 100 * ms, Percentiles: []Percentile{{Q: 0.9, D: 50 * ms}, {Q: 0.5, D: 60 * ms}}},
		"getPet":    {Min: 10 * ms, Max: 100 * ms, Percentiles: []Percentile{{Q: 0.5, D: 150 * ms}}},
		"createPet": {Min: 10 * ms, Max: 100 * ms, Percentiles: []Percentile{{Q: 0.5, D: 50 * ms}, {Q: 0.9, D: 40 * ms}}},
	}})
	if err == nil {
		t.Fatal("New accepted impossible percentiles")
	}
	keys := optionErrors(t, err)
	for _, key := range []string{"latency.listPets", "latency.getPet", "latency.createPet"} {
		if keys[key] == nil {
			t.Errorf("no problem at %s:\n%v", key, err)
		}
	}
	if !strings.Contains(err.Error(), "p50 follows p90") {
		t.Errorf("the error does not say the percentiles are out of order:\n%v", err)
	}
}
