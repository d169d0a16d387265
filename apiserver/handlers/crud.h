#pragma once

#include "apiserver/handlers/rest_request.h"
#include "apiserver/http/http_message.h"
#include "apiserver/objects/api_status.h"

// The REST verbs on resources and their subresources (status, scale, binding, eviction).
namespace troupe::apiserver {

http::Response handleGet(ApiContext& context, const RestRequest& request);
http::Response handleList(ApiContext& context, const RestRequest& request);
http::Response handleCreate(ApiContext& context, const RestRequest& request);
http::Response handleUpdate(ApiContext& context, const RestRequest& request);
http::Response handlePatch(ApiContext& context, const RestRequest& request);
http::Response handleDelete(ApiContext& context, const RestRequest& request);
http::Response handleDeleteCollection(ApiContext& context, const RestRequest& request);
http::Response handleBinding(ApiContext& context, const RestRequest& request);
http::Response handleEviction(ApiContext& context, const RestRequest& request);

// Parses a request body as JSON; a 400 Status shaped as the real server's otherwise.
ApiResult<nlohmann::json> parseBody(const RestRequest& request);

}  // namespace troupe::apiserver
