package doccheck

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/train/config"
)

// TestDeployShardsMatchLiteratureGrid: the Slurm array and the Kubernetes Indexed Job of
// deploy/ split configs/literature.yaml into the same number of shards, and that number divides
// the grid's cells, so adding a scheme to the grid without updating deploy/ fails here.
func TestDeployShardsMatchLiteratureGrid(t *testing.T) {
	src, err := configs.FS.ReadFile("literature.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(src, "configs/literature.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := config.Expand(c)
	if err != nil {
		t.Fatal(err)
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	num := func(re, text, what string) int {
		m := regexp.MustCompile(re).FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s: no match for %s", what, re)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	slurm := read("../../deploy/slurm/literature.sbatch")
	k8s := read("../../deploy/kubernetes/literature-job.yaml")
	array := num(`#SBATCH --array=0-(\d+)`, slurm, "literature.sbatch") + 1
	completions := num(`completions: (\d+)`, k8s, "literature-job.yaml")
	parallelism := num(`parallelism: (\d+)`, k8s, "literature-job.yaml")
	shards := num(`POSFORMER_SHARDS\s+value: "(\d+)"`, k8s, "literature-job.yaml")
	if array != completions || completions != parallelism || parallelism != shards || len(cells)%shards != 0 {
		t.Errorf("literature grid: %d cells; Slurm array of %d, Kubernetes completions %d, parallelism %d, POSFORMER_SHARDS %d: want one shard count dividing the cells",
			len(cells), array, completions, parallelism, shards)
	}
	for _, text := range []string{slurm, k8s} {
		if n := num(`=\s*#?\s*(\d+)\s*#?\s*cells`, text, "deploy comment"); n != len(cells) {
			t.Errorf("a deploy comment says %d cells, the grid has %d", n, len(cells))
		}
	}
}
