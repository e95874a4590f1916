package doccheck

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
)

// TestDeployShardsMatchGrids: for each grid deploy/ runs, the Slurm array and the Kubernetes
// Indexed Job split the config into the same number of shards, that number divides the grid's
// cells, and the deploy comments state the grid's cell count, so adding a task or a scheme to a
// grid without updating deploy/ fails here.
func TestDeployShardsMatchGrids(t *testing.T) {
	for _, d := range []struct{ config, slurm, k8s string }{
		{"literature.yaml", "literature.sbatch", "literature-job.yaml"},
		{"kazemnejad2023_full.yaml", "kazemnejad2023.sbatch", "kazemnejad2023-job.yaml"},
		{"ruoss2023_full.yaml", "ruoss2023.sbatch", "ruoss2023-job.yaml"},
		{"deletang2023.yaml", "deletang2023.sbatch", "deletang2023-job.yaml"},
	} {
		t.Run(d.config, func(t *testing.T) { checkDeploy(t, d.config, d.slurm, d.k8s) })
	}
}

func checkDeploy(t *testing.T, name, slurmFile, k8sFile string) {
	src, err := configs.FS.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(src, "configs/"+name, nil)
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
	slurm := read("../../deploy/slurm/" + slurmFile)
	k8s := read("../../deploy/kubernetes/" + k8sFile)
	if !strings.Contains(slurm, "configs/"+name) || !strings.Contains(k8s, "/configs/"+name) {
		t.Errorf("%s or %s does not run configs/%s", slurmFile, k8sFile, name)
	}
	array := num(`#SBATCH --array=0-(\d+)`, slurm, slurmFile) + 1
	completions := num(`completions: (\d+)`, k8s, k8sFile)
	parallelism := num(`parallelism: (\d+)`, k8s, k8sFile)
	shards := num(`POSFORMER_SHARDS\s+value: "(\d+)"`, k8s, k8sFile)
	if array != completions || completions != parallelism || parallelism != shards || len(cells)%shards != 0 {
		t.Errorf("%s: %d cells; Slurm array of %d, Kubernetes completions %d, parallelism %d, POSFORMER_SHARDS %d: want one shard count dividing the cells",
			name, len(cells), array, completions, parallelism, shards)
	}
	for _, text := range []string{slurm, k8s} {
		if n := num(`=\s*#?\s*(\d+)\s*#?\s*cells`, text, "deploy comment"); n != len(cells) {
			t.Errorf("%s: a deploy comment says %d cells, the grid has %d", name, n, len(cells))
		}
	}
}
