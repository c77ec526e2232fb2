package engine

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestErrorCodesDocumented keeps docs/errors.md and the code table in step.
func TestErrorCodesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/errors.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\| (\\d{3}) \\|").FindAllStringSubmatch(string(doc), -1)
	documented := map[Code]int{}
	for _, r := range rows {
		status, _ := strconv.Atoi(r[2])
		documented[Code(r[1])] = status
	}
	for code, status := range Codes() {
		got, ok := documented[code]
		switch {
		case !ok:
			t.Errorf("code %s (%d) is not in docs/errors.md", code, status)
		case got != status:
			t.Errorf("docs/errors.md gives %s status %d, the engine %d", code, got, status)
		}
	}
	for code := range documented {
		if _, ok := Codes()[code]; !ok {
			t.Errorf("docs/errors.md lists %s, which the engine does not have", code)
		}
	}
}
