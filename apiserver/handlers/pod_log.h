#pragma once

#include "apiserver/handlers/rest_request.h"
#include "apiserver/http/http_message.h"
#include "apiserver/objects/api_status.h"

// GET pods/{name}/log: a container's log (container_log.h), with the options kubectl logs
// sends (container, previous, timestamps, tailLines, limitBytes, sinceSeconds, sinceTime,
// follow) and the real server's answers for a container that is not there, has not
// started, or has no previous instance. With follow the response streams until the
// container ends or the pod goes away.
namespace troupe::apiserver {

http::Response handlePodLog(ApiContext& context, const RestRequest& request);

}  // namespace troupe::apiserver
