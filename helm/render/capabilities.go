package main

import (
	"fmt"
	"strconv"

	"github.com/Masterminds/semver/v3"
)

// KubeVersion is .Capabilities.KubeVersion.
type KubeVersion struct {
	Version string
	Major   string
	Minor   string
}

func (kv *KubeVersion) String() string     { return kv.Version }
func (kv *KubeVersion) GitVersion() string { return kv.Version }

// VersionSet is .Capabilities.APIVersions.
type VersionSet []string

func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// BuildInfo is .Capabilities.HelmVersion.
type BuildInfo struct {
	Version      string `json:"version,omitempty"`
	GitCommit    string `json:"git_commit,omitempty"`
	GitTreeState string `json:"git_tree_state,omitempty"`
	GoVersion    string `json:"go_version,omitempty"`
}

type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion BuildInfo
}

// The group versions client-go 0.28 registers (Helm 3.13's default APIVersions, without a
// cluster), with the apiextensions ones Helm adds.
var defaultAPIVersions = VersionSet{
	"admissionregistration.k8s.io/v1", "admissionregistration.k8s.io/v1alpha1",
	"admissionregistration.k8s.io/v1beta1", "internal.apiserver.k8s.io/v1alpha1", "apps/v1",
	"apps/v1beta1", "apps/v1beta2", "authentication.k8s.io/v1", "authentication.k8s.io/v1alpha1",
	"authentication.k8s.io/v1beta1", "authorization.k8s.io/v1", "authorization.k8s.io/v1beta1",
	"autoscaling/v1", "autoscaling/v2", "autoscaling/v2beta1", "autoscaling/v2beta2",
	"batch/v1", "batch/v1beta1", "certificates.k8s.io/v1", "certificates.k8s.io/v1beta1",
	"certificates.k8s.io/v1alpha1", "coordination.k8s.io/v1beta1", "coordination.k8s.io/v1",
	"v1", "discovery.k8s.io/v1", "discovery.k8s.io/v1beta1", "events.k8s.io/v1",
	"events.k8s.io/v1beta1", "extensions/v1beta1", "flowcontrol.apiserver.k8s.io/v1alpha1",
	"flowcontrol.apiserver.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1beta2",
	"flowcontrol.apiserver.k8s.io/v1beta3", "networking.k8s.io/v1", "networking.k8s.io/v1alpha1",
	"networking.k8s.io/v1beta1", "node.k8s.io/v1", "node.k8s.io/v1alpha1", "node.k8s.io/v1beta1",
	"policy/v1", "policy/v1beta1", "rbac.authorization.k8s.io/v1",
	"rbac.authorization.k8s.io/v1beta1", "rbac.authorization.k8s.io/v1alpha1",
	"resource.k8s.io/v1alpha2", "scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1beta1",
	"scheduling.k8s.io/v1", "storage.k8s.io/v1beta1", "storage.k8s.io/v1",
	"storage.k8s.io/v1alpha1", "apiextensions.k8s.io/v1beta1", "apiextensions.k8s.io/v1",
}

// helmVersion is the Helm whose rendering this program follows.
const helmVersion = "v3.13.3"

func newCapabilities(kubeVersion string, extraAPIVersions []string) (*Capabilities, error) {
	sv, err := semver.NewVersion(kubeVersion)
	if err != nil {
		return nil, fmt.Errorf("invalid kube version %q: %w", kubeVersion, err)
	}
	apis := append(VersionSet{}, extraAPIVersions...)
	apis = append(apis, defaultAPIVersions...)
	return &Capabilities{
		KubeVersion: KubeVersion{
			Version: "v" + sv.String(),
			Major:   strconv.FormatUint(sv.Major(), 10),
			Minor:   strconv.FormatUint(sv.Minor(), 10),
		},
		APIVersions: apis,
		HelmVersion: BuildInfo{Version: helmVersion, GoVersion: "go1.20"},
	}, nil
}

// isCompatibleRange is Helm's check of Chart.yaml's kubeVersion against the cluster's.
func isCompatibleRange(constraint, version string) bool {
	sv, err := semver.NewVersion(version)
	if err != nil {
		return false
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return false
	}
	return c.Check(sv)
}
