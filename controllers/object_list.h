#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

// A list of API objects shared with the informer caches rather than copied out of them.
// The caches hold each object as an immutable shared JSON document; a scheduling cycle
// reads thousands of them, and copying every one per cycle (then freeing the copies) was
// a large share of a cycle's cost. Iterating yields `const nlohmann::json&`, so code that
// reads objects does not see the sharing; replace() swaps in a changed copy of one object
// without touching the cache's.
namespace troupe::controllers {

using ObjectRef = std::shared_ptr<const nlohmann::json>;

class ObjectList {
 public:
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = nlohmann::json;
    using difference_type = std::ptrdiff_t;
    using pointer = const nlohmann::json*;
    using reference = const nlohmann::json&;

    const_iterator() = default;
    explicit const_iterator(std::vector<ObjectRef>::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      auto copy = *this;
      ++it_;
      return copy;
    }
    friend bool operator==(const const_iterator&, const const_iterator&) = default;

   private:
    std::vector<ObjectRef>::const_iterator it_;
  };

  ObjectList() = default;
  explicit ObjectList(std::vector<ObjectRef> objects) : objects_(std::move(objects)) {}
  // Owned copies, for callers that build objects themselves (tests, tools).
  ObjectList(std::initializer_list<nlohmann::json> objects) {
    for (const auto& o : objects) push_back(o);
  }
  ObjectList(const std::vector<nlohmann::json>& objects) {  // NOLINT: implicit on purpose
    for (const auto& o : objects) push_back(o);
  }

  void push_back(nlohmann::json object) {
    objects_.push_back(std::make_shared<const nlohmann::json>(std::move(object)));
  }
  void push_back(ObjectRef object) { objects_.push_back(std::move(object)); }
  // The i-th object becomes `object`; the shared original is left as it was.
  void replace(std::size_t i, nlohmann::json object) {
    objects_.at(i) = std::make_shared<const nlohmann::json>(std::move(object));
  }
  void replace(std::size_t i, ObjectRef object) { objects_.at(i) = std::move(object); }

  const nlohmann::json& operator[](std::size_t i) const { return *objects_[i]; }
  // The shared document itself: its address names this version of the object.
  const ObjectRef& ref(std::size_t i) const { return objects_[i]; }
  std::size_t size() const { return objects_.size(); }
  bool empty() const { return objects_.empty(); }
  const_iterator begin() const { return const_iterator(objects_.begin()); }
  const_iterator end() const { return const_iterator(objects_.end()); }

 private:
  std::vector<ObjectRef> objects_;
};

}  // namespace troupe::controllers
