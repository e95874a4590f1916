package report

import (
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var passkeyHeatmap = flag.Bool("passkey-heatmap", false, "draw docs/img/passkey_heatmap.png from docs/claims/passkey.csv")

const depthTable = `task,scheme,variant,seed,length,in_range,exact_match,n
passkey,rope,,1,256,true,0.5,32
passkey,rope,eval=depth0,1,256,true,1,32
passkey,rope,eval=depth0,2,256,true,0.5,32
passkey,rope,eval=depth0,1,512,false,0.25,32
passkey,rope,eval=depth0,2,512,false,0,32
passkey,rope,eval=depth100,1,256,true,0.75,32
passkey,rope,eval=depth100,2,256,true,0.25,32
passkey,rope,"rope_scaling=yarn,eval=yarn_depth50",1,512,false,0.125,32
passkey,rope,"rope_scaling=yarn,eval=yarn_depth50",2,512,false,0.375,32
passkey,none,eval=depth25,1,256,true,0,32
`

// TestDepthGrid: the means over seeds land at their panel, length and depth; rows without a
// depth variant are left out; a labelled variant is a panel of its own.
func TestDepthGrid(t *testing.T) {
	panels, cells, err := DepthGrid([]byte(depthTable), "exact_match")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(panels, "|") != "rope|rope + yarn|none" {
		t.Fatalf("panels %q", panels)
	}
	want := map[string][]DepthCell{
		"rope":        {{256, 0, 0.75, 2}, {512, 0, 0.125, 2}, {256, 1, 0.5, 2}},
		"rope + yarn": {{512, 0.5, 0.25, 2}},
		"none":        {{256, 0.25, 0, 1}},
	}
	for p, w := range want {
		if len(cells[p]) != len(w) {
			t.Fatalf("%s: %v, want %v", p, cells[p], w)
		}
		for i := range w {
			if cells[p][i] != w[i] {
				t.Errorf("%s cell %d: %+v, want %+v", p, i, cells[p][i], w[i])
			}
		}
	}
	for _, bad := range []string{"task,scheme\nx,y\n", "scheme,variant,length,exact_match\nrope,,256,1\n", "scheme,variant,length,exact_match\nrope,eval=depth0,x,1\n"} {
		if _, _, err := DepthGrid([]byte(bad), "exact_match"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestDepthHeatmap draws the synthetic table: a PNG of one panel per scheme, wider with more
// panels. With -passkey-heatmap it draws docs/img/passkey_heatmap.png from docs/claims/passkey.csv.
func TestDepthHeatmap(t *testing.T) {
	dir := t.TempDir()
	panels, cells, err := DepthGrid([]byte(depthTable), "exact_match")
	if err != nil {
		t.Fatal(err)
	}
	widths := []int{}
	for _, ps := range [][]string{panels[:1], panels} {
		if err := DepthHeatmap(dir, "h", "", "retrieval accuracy", ps, cells); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "h.png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		widths = append(widths, img.Bounds().Dx())
	}
	if widths[1] <= widths[0] {
		t.Errorf("3 panels %d px wide, 1 panel %d", widths[1], widths[0])
	}
	if !*passkeyHeatmap {
		return
	}
	table, err := os.ReadFile(filepath.Join("..", "docs", "claims", "passkey.csv"))
	if err != nil {
		t.Fatal(err)
	}
	panels, cells, err = DepthGrid(table, "exact_match")
	if err != nil {
		t.Fatal(err)
	}
	if err := DepthHeatmap(filepath.Join("..", "docs", "img"), "passkey_heatmap", "mean of 3 seeds; trained at 256 bytes", "retrieval accuracy", panels, cells); err != nil {
		t.Fatal(err)
	}
}
