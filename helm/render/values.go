package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/mitchellh/copystructure"
	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

// readValues parses a values file as Helm does: YAML turned into JSON and decoded, so every
// number is a float64 (why `{{ .Values.n }}` of 1000000 prints 1e+06 under Helm, and why
// templates pass numbers through int or int64).
func readValues(data []byte) (map[string]interface{}, error) {
	var values map[string]interface{}
	err := yaml.Unmarshal(data, &values)
	if len(values) == 0 {
		values = map[string]interface{}{}
	}
	return values, err
}

// userValues merges the -f files in order, later files winning key by key (helm's
// `--values` flags).
func userValues(files []string) (map[string]interface{}, error) {
	base := map[string]interface{}{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		current := map[string]interface{}{}
		if err := yaml.Unmarshal(data, &current); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", path, err)
		}
		base = mergeMaps(base, current)
	}
	return base, nil
}

func mergeMaps(a, b map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if v, ok := v.(map[string]interface{}); ok {
			if bv, ok := out[k]; ok {
				if bv, ok := bv.(map[string]interface{}); ok {
					out[k] = mergeMaps(bv, v)
					continue
				}
			}
		}
		out[k] = v
	}
	return out
}

func isTable(v interface{}) bool {
	_, ok := v.(map[string]interface{})
	return ok
}

// coalesceValues lays the chart's defaults under the user's values: a user key wins, a user
// null deletes the default, tables merge key by key (Helm's CoalesceValues for a chart
// without subcharts).
func coalesceValues(chartValues, user map[string]interface{}) (map[string]interface{}, error) {
	copied, err := copystructure.Copy(user)
	if err != nil {
		return nil, err
	}
	dest := copied.(map[string]interface{})
	if dest == nil {
		dest = map[string]interface{}{}
	}
	defaults, err := copystructure.Copy(chartValues)
	if err != nil {
		return nil, err
	}
	for key, val := range defaults.(map[string]interface{}) {
		value, ok := dest[key]
		if !ok {
			dest[key] = val
			continue
		}
		if value == nil {
			delete(dest, key)
		} else if d, ok := value.(map[string]interface{}); ok {
			if src, ok := val.(map[string]interface{}); ok {
				coalesceTables(d, src)
			} else if val != nil {
				warn("skipped value for %s: Not a table.", key)
			}
		}
	}
	return dest, nil
}

func coalesceTables(dst, src map[string]interface{}) {
	for key, val := range src {
		dv, ok := dst[key]
		switch {
		case ok && dv == nil:
			delete(dst, key)
		case !ok:
			dst[key] = val
		case isTable(val):
			if isTable(dv) {
				coalesceTables(dv.(map[string]interface{}), val.(map[string]interface{}))
			} else {
				warn("cannot overwrite table with non table for %s (%v)", key, val)
			}
		case isTable(dv) && val != nil:
			warn("destination for %s is a table. Ignoring non-table value (%v)", key, val)
		}
	}
}

func warn(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "warning: "+format+"\n", args...)
}

// validateValues checks the coalesced values against values.schema.json with the JSON
// Schema library Helm 3 uses, reporting as `helm install` does.
func validateValues(chartName string, schema []byte, values map[string]interface{}) error {
	if schema == nil {
		return nil
	}
	data, err := yaml.Marshal(values)
	if err != nil {
		return err
	}
	valuesJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	if bytes.Equal(valuesJSON, []byte("null")) {
		valuesJSON = []byte("{}")
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema),
		gojsonschema.NewBytesLoader(valuesJSON))
	if err != nil {
		return err
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	for _, e := range result.Errors() {
		sb.WriteString(fmt.Sprintf("- %s\n", e))
	}
	return fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s",
		chartName, sb.String())
}
