package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// The template engine of Helm 3.13: every file of templates/ parsed into one template set
// (so _helpers.tpl's defines are shared), missing keys rendering as nothing, sprig's
// functions without env and expandenv, and Helm's own: include, tpl, required, fail,
// toYaml and friends, lookup (empty without a cluster, as in `helm template`).

// Values is Helm's chartutil.Values: templates reach it as .Values, and tpl takes it.
type Values map[string]interface{}

type renderable struct {
	tpl      string
	vals     Values
	basePath string
}

const (
	warnStart        = "HELM_ERR_START"
	warnEnd          = "HELM_ERR_END"
	recursionMaxNums = 1000
)

var warnRegex = regexp.MustCompile(warnStart + `((?s).*)` + warnEnd)

func warnWrap(warn string) string { return warnStart + warn + warnEnd }

func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toToml":        toTOML,
		"toYaml":        toYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"include":       func(string, interface{}) string { return "not implemented" },
		"tpl":           func(string, interface{}) interface{} { return "not implemented" },
		"required":      func(string, interface{}) (interface{}, error) { return "not implemented", nil },
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(str string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(str), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(str string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(str), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toTOML(v interface{}) string {
	b := bytes.NewBuffer(nil)
	if err := toml.NewEncoder(b).Encode(v); err != nil {
		return err.Error()
	}
	return b.String()
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(str string) map[string]interface{} {
	m := make(map[string]interface{})
	if err := json.Unmarshal([]byte(str), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(str string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(str), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func pathValue(v Values, dotted string) (interface{}, bool) {
	var cur interface{} = map[string]interface{}(v)
	for _, part := range strings.Split(dotted, ".") {
		var m map[string]interface{}
		switch t := cur.(type) {
		case Values:
			m = t
		case map[string]interface{}:
			m = t
		default:
			return nil, false
		}
		next, ok := m[part]
		if !ok {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

func initFuncMap(t *template.Template, references map[string]renderable) {
	funcs := funcMap()
	includedNames := make(map[string]int)
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf strings.Builder
		if v, ok := includedNames[name]; ok {
			if v > recursionMaxNums {
				return "", fmt.Errorf("rendering template has a nested reference name: %s: unable to execute template", name)
			}
			includedNames[name]++
		} else {
			includedNames[name] = 1
		}
		err := t.ExecuteTemplate(&buf, name, data)
		includedNames[name]--
		return buf.String(), err
	}
	funcs["tpl"] = func(tpl string, vals Values) (string, error) {
		basePath, ok := pathValue(vals, "Template.BasePath")
		if !ok {
			return "", fmt.Errorf("cannot retrieve Template.Basepath from values inside tpl function: %s", tpl)
		}
		name, ok := pathValue(vals, "Template.Name")
		if !ok {
			return "", fmt.Errorf("cannot retrieve Template.Name from values inside tpl function: %s", tpl)
		}
		one := map[string]renderable{name.(string): {tpl: tpl, vals: vals, basePath: basePath.(string)}}
		out, err := renderWithReferences(one, references)
		if err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", tpl, err)
		}
		return out[name.(string)], nil
	}
	funcs["required"] = func(warn string, val interface{}) (interface{}, error) {
		if val == nil {
			return val, errors.New(warnWrap(warn))
		} else if s, ok := val.(string); ok && s == "" {
			return val, errors.New(warnWrap(warn))
		}
		return val, nil
	}
	funcs["fail"] = func(msg string) (string, error) { return "", errors.New(warnWrap(msg)) }
	// `helm template` resolves no names.
	funcs["getHostByName"] = func(string) string { return "" }
	t.Funcs(funcs)
}

// sortTemplates orders template names as Helm parses and renders them: deeper paths first,
// then by name.
func sortTemplates(tpls map[string]renderable) []string {
	keys := make([]string, 0, len(tpls))
	for k := range tpls {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		ca, cb := strings.Count(a, "/"), strings.Count(b, "/")
		if ca == cb {
			return a > b
		}
		return ca > cb
	})
	return keys
}

func renderWithReferences(tpls, references map[string]renderable) (rendered map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("rendering template failed: %v", r)
		}
	}()
	t := template.New("gotpl")
	t.Option("missingkey=zero")
	initFuncMap(t, references)
	keys := sortTemplates(tpls)
	for _, name := range keys {
		if _, err := t.New(name).Parse(tpls[name].tpl); err != nil {
			return nil, cleanupParseError(name, err)
		}
	}
	for _, name := range sortTemplates(references) {
		if t.Lookup(name) == nil {
			if _, err := t.New(name).Parse(references[name].tpl); err != nil {
				return nil, cleanupParseError(name, err)
			}
		}
	}
	rendered = make(map[string]string, len(keys))
	for _, name := range keys {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		vals := tpls[name].vals
		vals["Template"] = Values{"Name": name, "BasePath": tpls[name].basePath}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, name, vals); err != nil {
			return nil, cleanupExecError(name, err)
		}
		// Missing keys print "<no value>" despite missingkey=zero; Helm removes it.
		rendered[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return rendered, nil
}

func cleanupParseError(name string, err error) error {
	tokens := strings.Split(err.Error(), ": ")
	if len(tokens) == 1 {
		return fmt.Errorf("parse error in (%s): %s", name, err)
	}
	return fmt.Errorf("parse error at (%s): %s", tokens[1], tokens[len(tokens)-1])
}

func cleanupExecError(name string, err error) error {
	if _, ok := err.(template.ExecError); !ok {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %s", name, err)
	}
	if parts := warnRegex.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], parts[1])
	}
	return err
}

// chartFiles is .Files: the chart's files other than templates, Chart.yaml and values.
type chartFiles map[string][]byte

func (f chartFiles) GetBytes(name string) []byte { return f[name] }
func (f chartFiles) Get(name string) string      { return string(f[name]) }
func (f chartFiles) Lines(name string) []string {
	if f[name] == nil {
		return []string{}
	}
	return strings.Split(string(f[name]), "\n")
}

// renderChart renders every template of the chart with the top-level values (Release,
// Capabilities, Values) as Helm's engine scopes them for a chart without subcharts.
func renderChart(c *Chart, top Values) (map[string]string, error) {
	files := chartFiles{}
	for _, f := range c.Files {
		files[f.Name] = f.Data
	}
	next := Values{
		"Chart": struct {
			Metadata
			IsRoot bool
		}{c.Metadata, true},
		"Files":        files,
		"Release":      top["Release"],
		"Capabilities": top["Capabilities"],
		"Values":       top["Values"],
		"Subcharts":    map[string]interface{}{},
	}
	tpls := map[string]renderable{}
	for _, t := range c.Templates {
		if strings.EqualFold(c.Metadata.Type, "library") && !strings.HasPrefix(path.Base(t.Name), "_") {
			continue
		}
		tpls[path.Join(c.Metadata.Name, t.Name)] = renderable{
			tpl:      string(t.Data),
			vals:     next,
			basePath: path.Join(c.Metadata.Name, "templates"),
		}
	}
	return renderWithReferences(tpls, tpls)
}
