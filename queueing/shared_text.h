#pragma once

#include <memory>
#include <string>
#include <utility>

namespace troupe::queueing {

// An immutable text shared by every copy instead of copied. A failed preemption search's
// detail ("preempting every gang it may preempt would still not make room", or the rule a
// reclaim would break) is remembered once and handed to every waiting gang of its kind in
// the queue; as a std::string each of them allocated, copied and compared it again on
// every walk of the queue, a large part of a visit that otherwise only reads memos.
class SharedText {
 public:
  SharedText() = default;
  SharedText(std::string text)  // NOLINT: implicit, as a string is assigned
      : text_(text.empty() ? nullptr : std::make_shared<const std::string>(std::move(text))) {}

  const std::string& str() const { return text_ ? *text_ : none(); }
  bool empty() const { return !text_; }

  // Equal texts, whether shared or not: comparing the same one costs a pointer compare.
  friend bool operator==(const SharedText& a, const SharedText& b) {
    return a.text_ == b.text_ || a.str() == b.str();
  }

 private:
  static const std::string& none() {
    static const std::string none;
    return none;
  }
  std::shared_ptr<const std::string> text_;
};

}  // namespace troupe::queueing
