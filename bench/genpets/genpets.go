// Package genpets writes a deterministic fixtures file of n Petstore
// animals, for measuring petctl with a large store: the same n always gives
// the same bytes.
package genpets

import (
	"bufio"
	"io"
	"strconv"
)

var names = []string{
	"Milo", "Stella", "Oliver", "Willow", "Louie", "Mochi", "Kiwi", "Shadow",
	"Charlie", "Luna", "Bella", "Max", "Daisy", "Rocky", "Nala", "Simba",
	"Coco", "Pepper", "Ginger", "Oscar", "Ruby", "Teddy", "Zoe", "Bear",
}

// Statuses in the proportions Write uses: 60% available, 20% pending, 15%
// sold, and 5% without a status (the schema allows it).
func status(h uint64) string {
	switch p := h % 100; {
	case p < 60:
		return "available"
	case p < 80:
		return "pending"
	case p < 95:
		return "sold"
	}
	return ""
}

// splitmix64 is a fixed mixing function: pseudo-random, and the same everywhere.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Write writes n animals with ids 1..n as a JSON array, one per line.
func Write(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	buf := make([]byte, 0, 128)
	bw.WriteString("[\n")
	for i := 1; i <= n; i++ {
		h := splitmix64(uint64(i))
		buf = append(buf[:0], `{"id":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		buf = append(buf, `,"name":"`...)
		buf = append(buf, names[(h>>8)%uint64(len(names))]...)
		buf = append(buf, `","categoryId":`...)
		buf = strconv.AppendUint(buf, 1+(h>>16)%12, 10)
		if st := status(h); st != "" {
			buf = append(buf, `,"status":"`...)
			buf = append(buf, st...)
			buf = append(buf, '"')
		}
		buf = append(buf, '}')
		if i < n {
			buf = append(buf, ',')
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	bw.WriteString("]\n")
	return bw.Flush()
}
