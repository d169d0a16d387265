#include "apiserver/objects/api_status.h"

namespace troupe::apiserver {

namespace {

nlohmann::json details(const ResourceKind& kind, const std::string& name) {
  nlohmann::json d = nlohmann::json::object();
  if (!name.empty()) d["name"] = name;
  if (!kind.group.empty()) d["group"] = kind.group;
  d["kind"] = kind.resource;
  return d;
}

}  // namespace

ApiError statusError(int code, const std::string& reason, const std::string& message,
                     nlohmann::json extra) {
  nlohmann::json status = nlohmann::json::object();
  status["kind"] = "Status";
  status["apiVersion"] = "v1";
  status["metadata"] = nlohmann::json::object();
  status["status"] = "Failure";
  status["message"] = message;
  status["reason"] = reason;
  if (!extra.is_null()) status["details"] = std::move(extra);
  status["code"] = code;
  return ApiError{code, std::move(status)};
}

ApiError notFound(const ResourceKind& kind, const std::string& name) {
  return statusError(404, "NotFound", kind.storageName() + " \"" + name + "\" not found",
                     details(kind, name));
}

ApiError alreadyExists(const ResourceKind& kind, const std::string& name) {
  return statusError(409, "AlreadyExists", kind.storageName() + " \"" + name + "\" already exists",
                     details(kind, name));
}

ApiError conflict(const ResourceKind& kind, const std::string& name, const std::string& why) {
  return statusError(
      409, "Conflict",
      "Operation cannot be fulfilled on " + kind.storageName() + " \"" + name + "\": " + why,
      details(kind, name));
}

ApiError staleConflict(const ResourceKind& kind, const std::string& name) {
  return conflict(kind, name,
                  "the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

ApiError invalid(const ResourceKind& kind, const std::string& name,
                 const std::vector<Cause>& causes) {
  std::string summary;
  nlohmann::json cause_list = nlohmann::json::array();
  for (const auto& c : causes) {
    std::string line = c.field + ": " + c.message;
    summary += summary.empty() ? line : ", " + line;
    cause_list.push_back({{"reason", c.reason}, {"message", c.message}, {"field", c.field}});
  }
  if (causes.size() > 1) summary = "[" + summary + "]";
  std::string qualified = kind.group.empty() ? kind.kind : kind.kind + "." + kind.group;
  nlohmann::json d = nlohmann::json::object();
  d["name"] = name;
  if (!kind.group.empty()) d["group"] = kind.group;
  d["kind"] = kind.kind;
  d["causes"] = cause_list;
  return statusError(422, "Invalid", qualified + " \"" + name + "\" is invalid: " + summary,
                     std::move(d));
}

ApiError badRequest(const std::string& message) { return statusError(400, "BadRequest", message); }

ApiError gone(const std::string& message) { return statusError(410, "Expired", message); }

ApiError methodNotSupported(const std::string& verb, const std::string& resource) {
  return statusError(405, "MethodNotAllowed",
                     verb + " is not supported on resources of kind \"" + resource + "\"");
}

ApiError fromStoreError(const Error& error, const ResourceKind& kind, const std::string& name) {
  switch (error.code) {
    case ErrorCode::NotFound: return notFound(kind, name);
    case ErrorCode::AlreadyExists: return alreadyExists(kind, name);
    case ErrorCode::Conflict: return staleConflict(kind, name);
    case ErrorCode::Gone: return gone(error.message);
    case ErrorCode::Invalid:
      return invalid(kind, name, {Cause{"FieldValueInvalid", error.message, error.field_path}});
    case ErrorCode::BadRequest: return badRequest(error.message);
    case ErrorCode::TooLarge: return statusError(413, "RequestEntityTooLarge", error.message);
    case ErrorCode::InsufficientStorage:
      return statusError(507, "InsufficientStorage",
                         "the server cannot store the write: " + error.describe());
    default: return statusError(500, "InternalError", error.describe());
  }
}

nlohmann::json successStatus(int code, nlohmann::json extra) {
  nlohmann::json status = {{"kind", "Status"},
                           {"apiVersion", "v1"},
                           {"metadata", nlohmann::json::object()},
                           {"status", "Success"}};
  if (!extra.is_null()) status["details"] = std::move(extra);
  status["code"] = code;
  return status;
}

}  // namespace troupe::apiserver
