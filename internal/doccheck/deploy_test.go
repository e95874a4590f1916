package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/setup"
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
	c, _, err := config.Read(src, "configs/"+name, nil)
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

// TestDeployMemoryCoversPrediction: each array script's --mem and each Indexed Job's memory limit
// hold the predicted peak of its busiest task: the largest run of the task's shard times the runs
// it trains at once (-jobs: the script's --cpus-per-task, the Job's args), over both submissions
// of a grid with select: (the tuning runs, then the cells), as grid.Run predicts it; and ask at
// most twice that plus 2 GB, so a grid that shrinks does not leave them holding idle memory.
func TestDeployMemoryCoversPrediction(t *testing.T) {
	for _, d := range []struct{ config, slurm, k8s string }{
		{"literature.yaml", "literature.sbatch", "literature-job.yaml"},
		{"kazemnejad2023_full.yaml", "kazemnejad2023.sbatch", "kazemnejad2023-job.yaml"},
		{"ruoss2023_full.yaml", "ruoss2023.sbatch", "ruoss2023-job.yaml"},
		{"deletang2023.yaml", "deletang2023.sbatch", "deletang2023-job.yaml"},
	} {
		t.Run(d.config, func(t *testing.T) {
			src, err := configs.FS.ReadFile(d.config)
			if err != nil {
				t.Fatal(err)
			}
			c, cells, err := config.Read(src, "configs/"+d.config, nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := setup.CheckGrid(c, cells) // each cell's memory predicted, as grid.Train logs it
			if err != nil {
				t.Fatal(err)
			}
			slurm, k8s := readFile(t, "../../deploy/slurm/"+d.slurm), readFile(t, "../../deploy/kubernetes/"+d.k8s)
			checkMemory(t, g, d.slurm, "--mem", sbatchMem(t, slurm),
				match(t, slurm, `(?m)^#SBATCH --array=0-(\d+)$`)+1, match(t, slurm, `(?m)^#SBATCH --cpus-per-task=(\d+)$`))
			checkMemory(t, g, d.k8s, "the memory limit", int64(match(t, k8s, `limits: \{memory: (\d+)Gi\}`))<<30,
				match(t, k8s, `completions: (\d+)`), match(t, k8s, `"-jobs", "(\d+)"`))
		})
	}
}

// checkMemory checks that mem bytes hold the predicted peak of the busiest of shards tasks, each
// running jobs runs at once.
func checkMemory(t *testing.T, g *setup.Grid, file, what string, mem int64, shards, jobs int) {
	t.Helper()
	var need int64 // the busiest task's predicted peak, bytes
	for _, runs := range [][]*setup.Checked{g.Cells, g.Tuning} {
		for i := 0; i < shards; i++ {
			var peak int64
			mine := 0
			for j, r := range runs {
				if (config.Shard{Index: i, Count: shards}).Has(j) {
					peak, mine = max(peak, r.Memory.Peak), mine+1
				}
			}
			need = max(need, peak*int64(min(jobs, mine)))
		}
	}
	if need == 0 {
		t.Fatalf("%s: no prediction (an unknown task?)", file)
	}
	t.Logf("%s: %s %d MB, predicted %d MB (%d runs at once)", file, what, mem>>20, need>>20, jobs)
	gb := (need + 1<<30 - 1) >> 30
	if mem < need {
		t.Errorf("%s: %s is %d MB, less than the %d MB predicted for %d runs at once of its largest cell; raise it to at least %d GB", file, what, mem>>20, need>>20, jobs, gb)
	}
	if mem > 2*need+2<<30 {
		t.Errorf("%s: %s is %d MB, more than twice the %d MB predicted plus 2 GB; lower it to about %d GB", file, what, mem>>20, need>>20, gb+1)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// match reads the number re's first group matches in text.
func match(t *testing.T, text []byte, re string) int {
	t.Helper()
	m := regexp.MustCompile(re).FindSubmatch(text)
	if m == nil {
		t.Fatalf("no match for %s", re)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// sbatchMem reads #SBATCH --mem in bytes (Slurm's units: M, the default, G, T; powers of 1024).
func sbatchMem(t *testing.T, text []byte) int64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^#SBATCH --mem=(\d+)([KMGT]?)$`).FindSubmatch(text)
	if m == nil {
		t.Fatal("no #SBATCH --mem=N[KMGT]")
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n << map[string]int{"K": 10, "": 20, "M": 20, "G": 30, "T": 40}[string(m[2])]
}

// TestSbatchLogsAndRequeue: what a real Slurm showed (deploy/slurm/test.sh): an --output under
// logs/ needs the directory before sbatch (Slurm opens it before the script runs, and a missing
// one fails the task with no log), so each array script's launch lines make it; and a --requeue
// script appends to its log, which otherwise a requeued task truncates, losing the first attempt.
func TestSbatchLogsAndRequeue(t *testing.T) {
	files, err := filepath.Glob("../../deploy/slurm/*.sbatch")
	if err != nil || len(files) < 5 {
		t.Fatalf("sbatch scripts: %v %v", files, err)
	}
	for _, f := range files {
		text := string(readFile(t, f))
		if strings.Contains(text, "#SBATCH --array=") && strings.Contains(text, "#SBATCH --output=logs/") && !strings.Contains(text, "#   mkdir -p logs") {
			t.Errorf("%s: its --output is under logs/, but its launch lines do not make it (#   mkdir -p logs)", f)
		}
		if strings.Contains(text, "#SBATCH --requeue") && !strings.Contains(text, "#SBATCH --open-mode=append") {
			t.Errorf("%s: --requeue without --open-mode=append: a requeued task truncates its log", f)
		}
	}
}
