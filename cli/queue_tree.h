#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

// The Queue objects as the tree they form, and what each holds of a resource. The same
// reading as the dashboard's (dashboard/web/dashboard.js), so both tell one story.
namespace troupe::cli {

// One queue's numbers for one resource, as plain numbers (GPUs, cores, bytes).
struct QueueQuota {
  double guaranteed = 0;
  std::optional<double> limit;  // none: no limit of its own
  std::optional<double> lending_limit;
  double fair_share = 0;  // status.fairShare
  double allocated = 0;   // status.allocated
};

QueueQuota quotaOf(const nlohmann::json& queue, const std::string& resource);

struct QueueTree {
  struct Entry {
    const nlohmann::json* queue = nullptr;
    std::string name;
    int depth = 0;
    // For drawing: whether this queue and each of its ancestors is its parent's last child.
    std::vector<bool> last;
  };
  std::vector<Entry> order;  // depth first, children by name
  // Sibling sets: the top-level queues, then each parent's children.
  std::vector<std::vector<const nlohmann::json*>> families;
};

// A queue whose parent is missing is drawn at the top level.
QueueTree queueTree(const std::vector<nlohmann::json>& queues);

// Among siblings, a queue above its guarantee borrows; one below it lends its idle
// guarantee (at most its lendingLimit). What a family's borrowers take is split over its
// lenders in proportion to what each has idle; the rest comes from outside the family (for
// top-level queues: capacity no queue is guaranteed). An attribution, not a record: the
// engine lends a pool, not a pair.
struct Borrowing {
  std::string borrower;
  std::string lender;  // empty: from outside the family
  double amount = 0;
};
std::vector<Borrowing> borrowing(const QueueTree& tree, const std::string& resource);

// A Kubernetes quantity as a plain number; nullopt when absent or unreadable.
std::optional<double> quantityValue(const nlohmann::json& value);

}  // namespace troupe::cli
