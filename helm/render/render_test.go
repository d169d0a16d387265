package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Each case is a behaviour of `helm template` that charts depend on, shown on a chart of
// one or two templates.

func writeChart(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["Chart.yaml"] = "apiVersion: v2\nname: demo\nversion: 0.2.0\nappVersion: \"1.0\"\n"
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRendering(t *testing.T) {
	cases := []struct {
		name      string
		files     map[string]string
		values    string // a -f file
		want      string // the whole output
		wantError string
	}{
		{
			name: "numbers from values are float64, so a large one prints in exponent form unless converted",
			files: map[string]string{
				"values.yaml":       "big: 1000000\nsmall: 2\n",
				"templates/cm.yaml": "kind: ConfigMap\ndata:\n  raw: {{ .Values.big }}\n  int: {{ int64 .Values.big }}\n  small: {{ .Values.small }}\n",
			},
			want: "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\ndata:\n  raw: 1e+06\n  int: 1000000\n  small: 2\n",
		},
		{
			name: "a missing value renders as nothing, and a missing nested table is an error",
			files: map[string]string{
				"templates/cm.yaml": "kind: ConfigMap\ndata:\n  a: \"{{ .Values.absent }}\"\n",
			},
			want: "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\ndata:\n  a: \"\"\n",
		},
		{
			name: "include of a helper, toYaml sorted by key, nindent",
			files: map[string]string{
				"values.yaml":            "labels:\n  zone: b\n  app: x\n",
				"templates/_helpers.tpl": "{{- define \"demo.name\" -}}{{ .Chart.Name }}-{{ .Release.Name }}{{- end }}",
				"templates/cm.yaml":      "kind: ConfigMap\nmetadata:\n  name: {{ include \"demo.name\" . }}\n  labels:\n    {{- toYaml .Values.labels | nindent 4 }}\n",
			},
			want: "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\nmetadata:\n  name: demo-rel\n  labels:\n    app: x\n    zone: b\n",
		},
		{
			name: "a values file merges over the defaults, and its null deletes a default",
			files: map[string]string{
				"values.yaml":       "a: {p: 1, q: 2}\nb: keep\n",
				"templates/cm.yaml": "kind: ConfigMap\ndata: {{ toJson .Values }}\n",
			},
			values: "a: {q: 3, r: 4}\nb: null\n",
			want:   "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\ndata: {\"a\":{\"p\":1,\"q\":3,\"r\":4}}\n",
		},
		{
			name: "required fails naming the template and line",
			files: map[string]string{
				"templates/cm.yaml": "kind: ConfigMap\nname: {{ required \"name is required\" .Values.name }}\n",
			},
			wantError: "execution error at (demo/templates/cm.yaml:2:9): name is required",
		},
		{
			name: "manifests go out in install order; empty documents and NOTES.txt are left out",
			files: map[string]string{
				"templates/a-deploy.yaml": "kind: Deployment\nmetadata: {name: d}\n---\n",
				"templates/b-sa.yaml":     "---\nkind: ServiceAccount\nmetadata: {name: s}\n---\nkind: Role\nmetadata: {name: r}\n",
				"templates/NOTES.txt":     "installed {{ .Release.Name }}\n",
			},
			want: "---\n# Source: demo/templates/b-sa.yaml\nkind: ServiceAccount\nmetadata: {name: s}\n" +
				"---\n# Source: demo/templates/b-sa.yaml\nkind: Role\nmetadata: {name: r}\n" +
				"---\n# Source: demo/templates/a-deploy.yaml\nkind: Deployment\nmetadata: {name: d}\n",
		},
		{
			name: "values that break values.schema.json stop the rendering",
			files: map[string]string{
				"values.yaml":        "replicas: 1\n",
				"values.schema.json": `{"type":"object","properties":{"replicas":{"type":"integer","minimum":1}}}`,
				"templates/cm.yaml":  "kind: ConfigMap\n",
			},
			values:    "replicas: 0\n",
			wantError: "- replicas: Must be greater than or equal to 1",
		},
		{
			name: "tpl renders a value as a template with the release in scope",
			files: map[string]string{
				"values.yaml":       "greeting: \"hello {{ .Release.Namespace }}\"\n",
				"templates/cm.yaml": "kind: ConfigMap\ndata:\n  g: {{ tpl .Values.greeting . }}\n",
			},
			want: "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\ndata:\n  g: hello ns\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeChart(t, tc.files)
			o := options{chartDir: dir, releaseName: "rel", namespace: "ns", kubeVersion: "v1.28.0"}
			if tc.values != "" {
				p := filepath.Join(t.TempDir(), "values.yaml")
				if err := os.WriteFile(p, []byte(tc.values), 0o644); err != nil {
					t.Fatal(err)
				}
				o.valueFiles = stringList{p}
			}
			got, err := render(o)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("error = %v, want one containing %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestChartKubeVersionIsCheckedAgainstCapabilities(t *testing.T) {
	dir := writeChart(t, map[string]string{"templates/cm.yaml": "kind: ConfigMap\n"})
	chartYaml := filepath.Join(dir, "Chart.yaml")
	data, _ := os.ReadFile(chartYaml)
	os.WriteFile(chartYaml, append(data, []byte("kubeVersion: \">=1.27.0-0\"\n")...), 0o644)
	_, err := render(options{chartDir: dir, releaseName: "r", namespace: "n", kubeVersion: "1.26.3"})
	want := "chart requires kubeVersion: >=1.27.0-0 which is incompatible with Kubernetes v1.26.3"
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}
