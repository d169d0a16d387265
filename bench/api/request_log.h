#pragma once

#include <cstdint>
#include <map>
#include <string>

// The server's record of every request (`troupe serve --authorization-log`: one
// SubjectAccessReview a line, with the user and the request's verb, resource and
// subresource), read back to count the writes one client made: the API writes a pod costs
// the operator, counted where the server saw them.
namespace troupe::bench {

// The writes (create, update, patch, delete, deletecollection) `user` made, by
// "<verb> <resource>[/<subresource>]" ("create pods/binding"), in the lines of the log at
// `path` that start at byte `from` or later. A check made within another request (an
// owner reference's `update <kind>/finalizers`) is not a request and is not counted.
std::map<std::string, std::int64_t> writesBy(const std::string& path, const std::string& user,
                                             std::int64_t from = 0);

// The log's size now: where the next phase's lines start.
std::int64_t requestLogSize(const std::string& path);

}  // namespace troupe::bench
