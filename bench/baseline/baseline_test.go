package baseline

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestBaseline(t *testing.T) {
	for _, enc := range []Encoding{Marshal, Cached} {
		t.Run(enc.String(), func(t *testing.T) {
			var pets []Pet
			for i := 1; i <= 30; i++ {
				st := "available"
				if i%3 == 0 {
					st = "sold"
				}
				pets = append(pets, Pet{ID: int64(i), Name: "p", CategoryID: 1, Status: st})
			}
			srv := httptest.NewServer(New(pets, "k", enc))
			defer srv.Close()
			do := func(method, path, key, body string) (int, []byte) {
				t.Helper()
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, b
			}
			list := func(path string) []Pet {
				t.Helper()
				code, body := do("GET", path, "k", "")
				var got []Pet
				if code != 200 || json.Unmarshal(body, &got) != nil {
					t.Fatalf("GET %s: %d %s", path, code, body)
				}
				return got
			}
			if got := list("/v1/pets"); len(got) != 20 || got[0].ID != 1 {
				t.Errorf("default page: %d pets from %d, want 20 from 1", len(got), got[0].ID)
			}
			if got := list("/v1/pets?status=sold&limit=4"); len(got) != 4 || got[3].ID != 12 {
				t.Errorf("sold page: %+v, want 4 ending at 12", got)
			}
			if code, _ := do("GET", "/v1/pets", "wrong", ""); code != 401 {
				t.Errorf("wrong key: %d, want 401", code)
			}
			if code, _ := do("GET", "/v1/pets?limit=0", "k", ""); code != 400 {
				t.Errorf("limit=0: %d, want 400", code)
			}
			code, body := do("POST", "/v1/pets", "k", `{"name":"New","categoryId":2}`)
			var created Pet
			if code != 201 || json.Unmarshal(body, &created) != nil || created.ID != 31 {
				t.Fatalf("create: %d %s, want 201 with id 31", code, body)
			}
			if got := list("/v1/pets?limit=100"); len(got) != 31 || got[30].Name != "New" {
				t.Errorf("after create: %d pets, want 31 ending with New", len(got))
			}
		})
	}
}
