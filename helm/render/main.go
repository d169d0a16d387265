// chart-render prints what `helm template` prints for a chart, without Helm: Helm is no
// Debian package, while the pieces its rendering is made of are (Go's text/template,
// sprig, sigs.k8s.io/yaml, gojsonschema, semver). It follows Helm 3.13 for a chart without
// subcharts:
//
//	chart-render [--release-name NAME] [--namespace NS] [-f VALUES]... [--kube-version V]
//	             [--api-versions G/V]... [--include-crds] [--notes] CHART_DIR
//
// Values are the chart's values.yaml under the -f files (merged in order), checked against
// values.schema.json; .Release is an install of revision 1; .Capabilities are those of
// `helm template` without a cluster (Kubernetes v1.28.0 unless --kube-version).
package main

import (
	"flag"
	"fmt"
	"os"
	"path"
	"strings"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

type options struct {
	chartDir    string
	releaseName string
	namespace   string
	valueFiles  stringList
	kubeVersion string
	apiVersions stringList
	includeCRDs bool
	notes       bool
}

func main() {
	var o options
	fs := flag.NewFlagSet("chart-render", flag.ContinueOnError)
	fs.StringVar(&o.releaseName, "release-name", "release-name", "the release's name")
	fs.StringVar(&o.namespace, "namespace", "default", "the release's namespace")
	fs.StringVar(&o.namespace, "n", "default", "the release's namespace")
	fs.Var(&o.valueFiles, "values", "a values file (repeatable, later ones win)")
	fs.Var(&o.valueFiles, "f", "a values file (repeatable, later ones win)")
	fs.StringVar(&o.kubeVersion, "kube-version", "v1.28.0", "the Kubernetes version of .Capabilities")
	fs.Var(&o.apiVersions, "api-versions", "a group/version added to .Capabilities.APIVersions")
	fs.BoolVar(&o.includeCRDs, "include-crds", false, "print the chart's crds/ first")
	fs.BoolVar(&o.notes, "notes", false, "print the rendered NOTES.txt instead of the manifests")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "chart-render: expected one chart directory")
		os.Exit(2)
	}
	o.chartDir = fs.Arg(0)
	out, err := render(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "Error: %s\n", err)
		os.Exit(1)
	}
	fmt.Print(out)
}

func render(o options) (string, error) {
	c, err := loadChart(o.chartDir)
	if err != nil {
		return "", err
	}
	caps, err := newCapabilities(o.kubeVersion, o.apiVersions)
	if err != nil {
		return "", err
	}
	if c.Metadata.KubeVersion != "" && !isCompatibleRange(c.Metadata.KubeVersion, caps.KubeVersion.String()) {
		return "", fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s",
			c.Metadata.KubeVersion, caps.KubeVersion.String())
	}
	user, err := userValues(o.valueFiles)
	if err != nil {
		return "", err
	}
	values, err := coalesceValues(c.Values, user)
	if err != nil {
		return "", err
	}
	if err := validateValues(c.Metadata.Name, c.Schema, values); err != nil {
		return "", err
	}
	top := Values{
		"Capabilities": caps,
		"Release": map[string]interface{}{
			"Name":      o.releaseName,
			"Namespace": o.namespace,
			"IsUpgrade": false,
			"IsInstall": true,
			"Revision":  1,
			"Service":   "Helm",
		},
		"Values": Values(values),
	}
	files, err := renderChart(c, top)
	if err != nil {
		return "", err
	}
	notesName := path.Join(c.Metadata.Name, "templates", "NOTES.txt")
	notes := files[notesName]
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	if o.notes {
		return notes, nil
	}
	manifests, hooks, err := sortManifests(files)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if o.includeCRDs {
		for _, crd := range c.crdObjects() {
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", path.Join(c.Metadata.Name, crd.Name), string(crd.Data))
		}
	}
	for _, m := range append(manifests, hooks...) {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return b.String(), nil
}
