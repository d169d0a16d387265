package main

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// How `helm template` prints what the engine rendered: NOTES.txt apart, each file split into
// its YAML documents (empty ones dropped), hooks apart, the rest ordered by kind for
// installation (stable, so documents of one kind keep the order of their files, sorted by
// path, and within a file).

var installOrder = []string{
	"PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
	"PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
	"ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
	"CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
	"ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
	"DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
	"HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
	"APIService",
}

const hookAnnotation = "helm.sh/hook"

type simpleHead struct {
	Version  string `json:"apiVersion"`
	Kind     string `json:"kind,omitempty"`
	Metadata *struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata,omitempty"`
}

type manifest struct {
	Name    string
	Content string
	Kind    string
	Hook    bool
}

var separator = regexp.MustCompile("(?:^|\\s*\n)---\\s*")

func splitManifests(text string) []string {
	var out []string
	for _, d := range separator.Split(strings.TrimSpace(text), -1) {
		if d == "" {
			continue
		}
		out = append(out, strings.TrimSpace(d))
	}
	return out
}

// sortManifests returns the manifests to install and the hooks, each in install order.
func sortManifests(files map[string]string) (manifests, hooks []manifest, err error) {
	var paths []string
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		content := files[p]
		if strings.HasPrefix(path.Base(p), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range splitManifests(content) {
			var head simpleHead
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return nil, nil, fmt.Errorf("YAML parse error on %s: %w", p, err)
			}
			m := manifest{Name: p, Content: doc, Kind: head.Kind}
			if head.Metadata != nil && head.Metadata.Annotations[hookAnnotation] != "" {
				m.Hook = true
				hooks = append(hooks, m)
				continue
			}
			manifests = append(manifests, m)
		}
	}
	byKind(manifests)
	byKind(hooks)
	return manifests, hooks, nil
}

func byKind(ms []manifest) {
	order := map[string]int{}
	for i, k := range installOrder {
		order[k] = i
	}
	sort.SliceStable(ms, func(i, j int) bool {
		a, aok := order[ms[i].Kind]
		b, bok := order[ms[j].Kind]
		if !aok && !bok {
			return ms[i].Kind < ms[j].Kind
		}
		if !aok {
			return false
		}
		if !bok {
			return true
		}
		return a < b
	})
}
