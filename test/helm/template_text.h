#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

// Reading Helm templates without Helm. Helm is not a Debian package, so the chart's test does
// not render templates; it reads them the way a reviewer would: which actions they hold,
// which values they name, and what YAML is left when the actions are taken out. The chart is
// written so that this is sound: an action either fills a whole line (control flow, include,
// toYaml) or stands for one scalar, and never sits inside a quoted string.
namespace troupe::helm_test {

// One `{{ ... }}` action: its body without the delimiters, the trim markers (`{{-`, `-}}`)
// and the surrounding blanks, and the 1-based line it starts on.
struct TemplateAction {
  std::string body;
  int line = 0;
};

// The actions of `text` in order. An unterminated `{{` is an error naming its line.
Result<std::vector<TemplateAction>> findActions(std::string_view text);

// Which branch of each if/else chain stripActions keeps.
enum class Branch { First, Last };

// The YAML a template leaves once its actions are taken out:
//  - a line holding only actions is dropped (control flow, include, toYaml, comments);
//  - of an if/else chain only one branch is kept, the first or the last, so keys never
//    appear twice (a block without `else` is kept either way);
//  - any other action becomes the plain scalar `TPL_<body>`, the body's characters other
//    than letters, digits, `.`, `_` and `$` turned into `_` (so `{{ .Values.a }}` reads
//    `TPL_.Values.a`, and two uses of one value compare equal).
// Unbalanced if/with/range/define/end is an error naming the line.
Result<std::string> stripActions(std::string_view text, Branch keep = Branch::First);

// The placeholder stripActions writes for an action with this body.
std::string placeholderFor(std::string_view body);

// The dotted paths named after `.Values` or `$.Values` ("operator.stateDir"), sorted.
std::set<std::string> valueReferences(std::string_view text);

// The template names given to `include` / `template`, and those given to `define`.
std::set<std::string> includedTemplates(std::string_view text);
std::set<std::string> definedTemplates(std::string_view text);

}  // namespace troupe::helm_test
