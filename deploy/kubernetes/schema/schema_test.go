// Package schema validates deploy/kubernetes/*.yaml against the Kubernetes API schema, offline,
// twice: with kubeconform against the OpenAPI v3 documents of batch/v1 and core v1 that
// k8s.io/client-go embeds (openapitest: required fields, enums, types; made strict, an undeclared
// field is an error), and by decoding each object strictly into the API's Go types of k8s.io/api
// (every field exists, with its type, in the current API). The embedded documents are an older
// snapshot of the API than k8s.io/api: a field added since (backoffLimitPerIndex, GA in 1.33) is
// patched into them, named in patches below, and confirmed by the Go types.
// No cluster can be started in CI, so this is how the manifests are tested; the Slurm path is run
// for real by deploy/slurm/test.sh. A module of its own, so that its dependencies stay out of
// posformer's build: run it with `cd deploy/kubernetes/schema && go test ./...`.
package schema

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/validator"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/openapi/openapitest"
	"sigs.k8s.io/yaml"
)

// schemas are the kinds deploy/kubernetes uses: kubeconform's file name for each, the API path
// of its OpenAPI document and its schema's name there.
var schemas = []struct{ file, api, name string }{
	{"job-batch-v1.json", "apis/batch/v1", "io.k8s.api.batch.v1.Job"},
	{"persistentvolumeclaim-v1.json", "api/v1", "io.k8s.api.core.v1.PersistentVolumeClaim"},
}

// patches are the properties the manifests use that the embedded OpenAPI documents predate, by
// schema name: each is added to its schema (and the test fails once the document has it).
var patches = map[string]map[string]any{
	"io.k8s.api.batch.v1.JobSpec": {"backoffLimitPerIndex": map[string]any{"type": "integer", "format": "int32"}},
}

// newValidator writes one standalone JSON schema per kind into a temporary directory (the kind's
// $ref into its OpenAPI document's components, every object there closed to undeclared fields
// as kubeconform's -strict schemas are) and returns kubeconform's validator reading them.
func newValidator(t *testing.T) validator.Validator {
	t.Helper()
	paths, err := openapitest.NewEmbeddedFileClient().Paths()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, s := range schemas {
		gv, ok := paths[s.api]
		if !ok {
			t.Fatalf("client-go's OpenAPI documents have no %s", s.api)
		}
		src, err := gv.Schema("application/json")
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(src, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Components.Schemas[s.name] == nil {
			t.Fatalf("%s has no schema %s", s.api, s.name)
		}
		for name, props := range patches {
			sch, ok := doc.Components.Schemas[name].(map[string]any)
			if !ok {
				continue
			}
			have := sch["properties"].(map[string]any)
			for p, v := range props {
				if have[p] != nil {
					t.Fatalf("%s already declares %s: remove its patch", name, p)
				}
				have[p] = v
			}
		}
		for _, sch := range doc.Components.Schemas {
			closeObjects(sch)
		}
		out, err := json.Marshal(map[string]any{
			"$ref":       "#/components/schemas/" + s.name,
			"components": map[string]any{"schemas": doc.Components.Schemas},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.file), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, err := validator.New([]string{dir + "/{{ .ResourceKind }}{{ .KindSuffix }}.json"}, validator.Opts{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// closeObjects sets additionalProperties: false on every object schema with declared properties
// and no rule for others (unless it keeps unknown fields, x-kubernetes-preserve-unknown-fields).
func closeObjects(x any) {
	switch x := x.(type) {
	case map[string]any:
		_, props := x["properties"]
		_, extra := x["additionalProperties"]
		if props && !extra && x["x-kubernetes-preserve-unknown-fields"] != true {
			x["additionalProperties"] = false
		}
		for _, v := range x {
			closeObjects(v)
		}
	case []any:
		for _, v := range x {
			closeObjects(v)
		}
	}
}

// validate returns kubeconform's verdict on each document of a manifest: "" when valid, else why.
func validate(t *testing.T, v validator.Validator, name, text string) []string {
	t.Helper()
	var verdicts []string
	for _, r := range v.Validate(name, io.NopCloser(strings.NewReader(text))) {
		switch r.Status {
		case validator.Valid:
			verdicts = append(verdicts, "")
		case validator.Empty:
		default:
			why := "skipped"
			if r.Err != nil {
				why = r.Err.Error()
			}
			for _, e := range r.ValidationErrors {
				why += "; " + e.Path + ": " + e.Msg
			}
			verdicts = append(verdicts, why)
		}
	}
	return verdicts
}

// decodeStrict decodes a manifest's object into its k8s.io/api Go type, refusing an unknown field
// or a value of the wrong type.
func decodeStrict(text []byte) error {
	var meta struct{ Kind string }
	if err := yaml.Unmarshal(text, &meta); err != nil {
		return err
	}
	objs := map[string]any{"Job": &batchv1.Job{}, "PersistentVolumeClaim": &corev1.PersistentVolumeClaim{}}
	obj, ok := objs[meta.Kind]
	if !ok {
		return fmt.Errorf("kind %q: not one of the kinds this test knows", meta.Kind)
	}
	return yaml.UnmarshalStrict(text, obj)
}

// TestManifestsMatchTheAPISchema: every manifest in deploy/kubernetes is valid.
func TestManifestsMatchTheAPISchema(t *testing.T) {
	v := newValidator(t)
	files, err := filepath.Glob("../*.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("manifests: %v %v", files, err)
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeStrict(text); err != nil {
			t.Errorf("%s: as k8s.io/api's Go type: %v", f, err)
		}
		verdicts := validate(t, v, f, string(text))
		if len(verdicts) == 0 {
			t.Errorf("%s: no Kubernetes object in it", f)
		}
		for _, why := range verdicts {
			if why != "" {
				t.Errorf("%s: %s", f, why)
			}
		}
	}
}

// TestSchemaRefusesBrokenManifests: the validators are not a formality: a misspelt field, a
// field of the wrong type, a missing required field and an unknown kind in the literature Job
// are each refused (an enum's value is not: the embedded documents predate the API's enums).
func TestSchemaRefusesBrokenManifests(t *testing.T) {
	v := newValidator(t)
	text, err := os.ReadFile("../literature-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	job := string(text)
	for _, c := range []struct {
		what, old, new string
		typed          bool // the Go types refuse it too
	}{
		{"a misspelt field", "completionMode: Indexed", "completionsMode: Indexed", true},
		{"a field of the wrong type", "completions: 18", `completions: "18"`, true},
		{"a missing required field (the container's name)", "- name: train\n", "- \n", false},
		{"an unknown kind", "kind: Job", "kind: Jobs", true},
	} {
		broken := strings.Replace(job, c.old, c.new, 1)
		if broken == job {
			t.Fatalf("%s: %q is not in literature-job.yaml", c.what, c.old)
		}
		verdicts := validate(t, v, "literature-job.yaml", broken)
		if len(verdicts) != 1 || verdicts[0] == "" {
			t.Errorf("%s: not refused by kubeconform: %q", c.what, verdicts)
		} else {
			t.Logf("%s: %s", c.what, verdicts[0])
		}
		if err := decodeStrict([]byte(broken)); c.typed && err == nil {
			t.Errorf("%s: decoded into k8s.io/api's Go type without error", c.what)
		}
	}
}
