package spec

import (
	"math"
	"testing"
)

// TestLeastInteger: the first page or offset conform asks for is the least
// integer a parameter's bounds allow, never a fraction cut towards zero
// (minimum 0.5 allows 1, not 0) nor an overflow.
func TestLeastInteger(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		name      string
		min, excl *float64
		want      int64
		wantOK    bool
	}{
		{"none", nil, nil, 0, false},
		{"minimum 1", f(1), nil, 1, true},
		{"minimum 0.5", f(0.5), nil, 1, true},
		{"minimum -1.5", f(-1.5), nil, -1, true},
		{"exclusive 0", nil, f(0), 1, true},
		{"exclusive 0.5", nil, f(0.5), 1, true},
		{"both, exclusive higher", f(1), f(3), 4, true},
		{"both, minimum higher", f(7), f(3), 7, true},
		{"huge", f(1e300), nil, math.MaxInt64, true},
		{"2^63", f(math.Pow(2, 63)), nil, math.MaxInt64, true},
		{"hugely negative", f(-1e300), nil, math.MinInt64, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := (&Schema{Minimum: tc.min, ExclusiveMinimum: tc.excl}).LeastInteger()
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("LeastInteger() = %d, %v; want %d, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
