#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

// Checking YAML against the JSON Schema subset the chart relies on: the chart's
// values.schema.json (draft-07, which Helm applies to values before rendering) and the
// structural schemas of the CRDs. Supported: type, properties, additionalProperties (bool or
// schema), required, items, enum, minimum, maximum, exclusiveMinimum, minLength, maxLength,
// minItems, pattern, local $ref (#/definitions/...), and Kubernetes' x-kubernetes-int-or-string
// and x-kubernetes-preserve-unknown-fields. Scalars are typed the way Helm reads values
// (YAML 1.1): a quoted scalar is a string; a plain one may be a number, a boolean or null.
namespace troupe::helm_test {

// How keys that a schema does not declare are read. JSON Schema allows them unless
// additionalProperties is false; a CRD's structural schema prunes them, which for a manifest
// written by hand means a misspelt field, so they are reported.
enum class UnknownFields { AllowedUnlessForbidden, Reported };

// Every problem of `value` against `schema`, as "path: message" in Kubernetes' words
// ("replicas: Invalid value: 0: must be greater than or equal to 1"). `root` resolves $ref.
std::vector<std::string> schemaProblems(const YAML::Node& value, const YAML::Node& schema,
                                        const YAML::Node& root, UnknownFields unknown,
                                        const std::string& path = "");

}  // namespace troupe::helm_test
