package setup

import (
	"io/fs"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
)

// TestShippedConfigs: every config of configs/ passes the model's checks too, each cell and
// tuning run of a grid (config's TestShippedConfigs reads them as data).
func TestShippedConfigs(t *testing.T) {
	names, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	for _, name := range names {
		src, _ := configs.FS.ReadFile(name)
		c, cells, err := config.Read(src, name, nil)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(c.Sweep) == 0 {
			_, err = Check(c)
		} else {
			_, err = CheckGrid(c, cells)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
