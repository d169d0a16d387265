#include <catch2/catch.hpp>

#include "test/helm/template_text.h"

namespace troupe::helm_test {
namespace {

TEST_CASE("taking the actions out of a template leaves the YAML a reviewer would read",
          "[helm][template-text]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want;
  };
  std::vector<Case> cases = {
      {"a value in scalar position becomes a placeholder naming it",
       "replicas: {{ .Values.replicas }}\n", "replicas: TPL_.Values.replicas\n"},
      {"lines holding only actions disappear, their neighbours stay",
       "labels:\n  {{- include \"x.labels\" . | nindent 4 }}\nspec: {}\n", "labels:\nspec: {}\n"},
      {"of an if/else only the first branch is kept",
       "a:\n  {{- if .Values.p }}\n  b: 1\n  {{- else if .Values.q }}\n  c: 2\n  {{- else }}\n"
       "  d: 3\n  {{- end }}\ne: 4\n",
       "a:\n  b: 1\ne: 4\n"},
      {"nested blocks inside a dropped branch stay dropped",
       "{{- if .Values.a }}\nx: 1\n{{- else }}\n{{- with .Values.b }}\ny: 2\n{{- end }}\n"
       "{{- end }}\nz: 3\n",
       "x: 1\nz: 3\n"},
      {"several actions on one line each become a placeholder",
       "- --metrics-addr=:{{ .Values.port }}/{{ include \"a\" . }}\n",
       "- --metrics-addr=:TPL_.Values.port/TPL_include__a__.\n"},
      {"a comment running over several lines is dropped whole", "{{/*\nnot yaml: [\n*/}}\nk: v\n",
       "k: v\n"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto stripped = stripActions(tc.text);
      REQUIRE(stripped.ok());
      CHECK(*stripped == tc.want);
    }
  }
}

TEST_CASE("the last branch of each chain can be kept instead, to read the other side",
          "[helm][template-text]") {
  std::string text =
      "a:\n  {{- if .Values.p }}\n  b: 1\n  {{- else if .Values.q }}\n  c: 2\n  {{- else }}\n"
      "  d: 3\n  {{- end }}\n{{- with .Values.w }}\nw: {{ . }}\n{{- end }}\n"
      "{{- if .Values.x }}\n{{- if .Values.y }}\ny: 1\n{{- else }}\nn: 0\n{{- end }}\n"
      "{{- else }}\nx: 0\n{{- end }}\n";
  auto last = stripActions(text, Branch::Last);
  REQUIRE(last.ok());
  // chain p/q/else keeps d; `with` has one branch and stays; the outer x chain keeps x: 0.
  CHECK(*last == "a:\n  d: 3\nw: TPL_.\nx: 0\n");
  auto first = stripActions(text, Branch::First);
  REQUIRE(first.ok());
  CHECK(*first == "a:\n  b: 1\nw: TPL_.\ny: 1\n");
}

TEST_CASE("unbalanced control flow is reported with its line", "[helm][template-text]") {
  struct Case {
    std::string name;
    std::string text;
    std::string want_field;
    std::string want_message;
  };
  std::vector<Case> cases = {
      {"an if never closed", "a: 1\n{{- if .Values.x }}\nb: 2\n", "line 2",
       "`if` is never closed by `end`"},
      {"an end that closes nothing", "a: 1\n{{- end }}\n", "line 2", "`end` closes no block"},
      {"an else outside any block", "{{- else }}\n", "line 1",
       "`else` outside an if, with or range"},
      {"an action left open", "a: {{ .Values.x\n", "line 1",
       "`{{` without a closing `}}` on the same line"},
  };
  for (const auto& tc : cases) {
    DYNAMIC_SECTION(tc.name) {
      auto stripped = stripActions(tc.text);
      REQUIRE_FALSE(stripped.ok());
      CHECK(stripped.error().field_path == tc.want_field);
      CHECK(stripped.error().message == tc.want_message);
    }
  }
}

TEST_CASE("value references are read from .Values and $.Values, not from lookalikes",
          "[helm][template-text]") {
  auto refs = valueReferences(
      "{{ .Values.image.tag | default .Chart.AppVersion }} {{ include \"l\" $ }}"
      "{{ $.Values.operator.logLevel }} {{ .MyValues.nope }} {{- with .Values.nodeSelector }}");
  CHECK(refs == std::set<std::string>{"image.tag", "operator.logLevel", "nodeSelector"});
}

TEST_CASE("included and defined template names are read from their actions",
          "[helm][template-text]") {
  std::string text =
      "{{- define \"troupe.name\" -}}x{{- end }}\n{{ include \"troupe.labels\" . }}"
      "{{ template \"troupe.name\" . }}";
  CHECK(definedTemplates(text) == std::set<std::string>{"troupe.name"});
  CHECK(includedTemplates(text) == std::set<std::string>{"troupe.labels", "troupe.name"});
}

TEST_CASE("actions are found with their lines", "[helm][template-text]") {
  auto actions = findActions("a: 1\nb: {{- .Values.b -}}\n{{/* note */}}\n");
  REQUIRE(actions.ok());
  REQUIRE(actions->size() == 2);
  CHECK((*actions)[0].body == ".Values.b");
  CHECK((*actions)[0].line == 2);
  CHECK((*actions)[1].body == "/* note */");
  CHECK((*actions)[1].line == 3);
  CHECK_FALSE(findActions("x: {{ oops\n").ok());
}

}  // namespace
}  // namespace troupe::helm_test
