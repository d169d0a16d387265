package main

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"
)

// Maintainer and Dependency are the entries of Chart.yaml's lists, with Helm's field names.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

type Dependency struct {
	Name         string        `json:"name"`
	Version      string        `json:"version,omitempty"`
	Repository   string        `json:"repository"`
	Condition    string        `json:"condition,omitempty"`
	Tags         []string      `json:"tags,omitempty"`
	Enabled      bool          `json:"enabled,omitempty"`
	ImportValues []interface{} `json:"import-values,omitempty"`
	Alias        string        `json:"alias,omitempty"`
}

// Metadata is Chart.yaml as Helm reads it: .Chart in a template is this struct (plus
// IsRoot), so a template naming a field Helm lacks fails here as it fails there.
type Metadata struct {
	Name         string            `json:"name,omitempty"`
	Home         string            `json:"home,omitempty"`
	Sources      []string          `json:"sources,omitempty"`
	Version      string            `json:"version,omitempty"`
	Description  string            `json:"description,omitempty"`
	Keywords     []string          `json:"keywords,omitempty"`
	Maintainers  []*Maintainer     `json:"maintainers,omitempty"`
	Icon         string            `json:"icon,omitempty"`
	APIVersion   string            `json:"apiVersion,omitempty"`
	Condition    string            `json:"condition,omitempty"`
	Tags         string            `json:"tags,omitempty"`
	AppVersion   string            `json:"appVersion,omitempty"`
	Deprecated   bool              `json:"deprecated,omitempty"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	KubeVersion  string            `json:"kubeVersion,omitempty"`
	Dependencies []*Dependency     `json:"dependencies,omitempty"`
	Type         string            `json:"type,omitempty"`
}

// File is one file of the chart, by its path relative to the chart's root.
type File struct {
	Name string
	Data []byte
}

// Chart is a chart directory loaded as Helm's loader sorts its files: Chart.yaml, values.yaml
// and values.schema.json apart, templates/ as templates, everything else (crds/ included)
// as Files.
type Chart struct {
	Metadata  Metadata
	Values    map[string]interface{}
	Schema    []byte
	Templates []File
	Files     []File
}

// ignoreRules are .helmignore's patterns plus Helm's default (hidden files in templates/):
// "dir/" names a directory anywhere, a pattern with a slash is matched against the path
// from the chart's root, any other against each file's and directory's base name.
type ignoreRules []string

func readIgnoreRules(dir string) (ignoreRules, error) {
	rules := ignoreRules{"templates/.?*"}
	data, err := os.ReadFile(filepath.Join(dir, ".helmignore"))
	if os.IsNotExist(err) {
		return rules, nil
	} else if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "!") || strings.Contains(line, "**") {
			return nil, fmt.Errorf(".helmignore: %q: negation and ** are not supported by this renderer", line)
		}
		rules = append(rules, line)
	}
	return rules, nil
}

func (r ignoreRules) ignore(rel string, isDir bool) bool {
	for _, rule := range r {
		dirOnly := strings.HasSuffix(rule, "/")
		pattern := strings.TrimSuffix(rule, "/")
		if dirOnly && !isDir {
			continue
		}
		target := path.Base(rel)
		if strings.Contains(pattern, "/") {
			target = rel
		}
		if ok, _ := path.Match(pattern, target); ok {
			return true
		}
	}
	return false
}

// loadChart reads a chart directory. Subcharts (charts/) are not supported: Troupe's chart
// has none, and a chart that has them is refused rather than rendered differently from Helm.
func loadChart(dir string) (*Chart, error) {
	c := &Chart{}
	rules, err := readIgnoreRules(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rules.ignore(rel, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			paths = append(paths, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	for _, rel := range paths {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return nil, err
		}
		switch {
		case strings.HasPrefix(rel, "charts/") || rel == "requirements.yaml":
			return nil, fmt.Errorf("%s: not supported by this renderer", rel)
		case rel == "Chart.yaml":
			if err := yaml.Unmarshal(data, &c.Metadata); err != nil {
				return nil, fmt.Errorf("cannot load Chart.yaml: %w", err)
			}
		case rel == "values.yaml":
			values, err := readValues(data)
			if err != nil {
				return nil, fmt.Errorf("cannot load values.yaml: %w", err)
			}
			c.Values = values
		case rel == "values.schema.json":
			c.Schema = data
		case strings.HasPrefix(rel, "templates/"):
			c.Templates = append(c.Templates, File{rel, data})
		default:
			c.Files = append(c.Files, File{rel, data})
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.Values == nil {
		c.Values = map[string]interface{}{}
	}
	return c, nil
}

// validate holds Chart.yaml to the rules Helm's loader applies.
func (c *Chart) validate() error {
	m := c.Metadata
	if m.APIVersion == "" {
		return fmt.Errorf("validation: chart.metadata.apiVersion is required")
	}
	if m.Name == "" {
		return fmt.Errorf("validation: chart.metadata.name is required")
	}
	if m.Version == "" {
		return fmt.Errorf("validation: chart.metadata.version is required")
	}
	if _, err := semver.NewVersion(m.Version); err != nil {
		return fmt.Errorf("validation: chart.metadata.version %q is invalid", m.Version)
	}
	if m.Type != "" && m.Type != "application" && m.Type != "library" {
		return fmt.Errorf("validation: chart.metadata.type must be application or library")
	}
	if len(m.Dependencies) > 0 {
		return fmt.Errorf("chart dependencies are not supported by this renderer")
	}
	return nil
}

// crdObjects are the files under crds/ that Helm installs before the templates.
func (c *Chart) crdObjects() []File {
	var out []File
	for _, f := range c.Files {
		if strings.HasPrefix(f.Name, "crds/") &&
			(strings.HasSuffix(f.Name, ".yaml") || strings.HasSuffix(f.Name, ".yml") ||
				strings.HasSuffix(f.Name, ".json")) {
			out = append(out, f)
		}
	}
	return out
}
