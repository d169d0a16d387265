#include "apiserver/handlers/pod_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "apiserver/handlers/container_log.h"
#include "apiserver/handlers/json_response.h"
#include "apiserver/objects/object_service.h"
#include "common/json_member.h"
#include "common/rfc3339.h"

namespace troupe::apiserver {

namespace {

using json = nlohmann::json;

struct LogOptions {
  std::string container;
  bool timestamps = false;
  bool follow = false;
  std::optional<std::int64_t> tail_lines;
  std::optional<std::int64_t> limit_bytes;
  std::string since;  // lines stamped at or after this RFC 3339 time ("": all)
};

std::vector<std::string> containerNames(const json& pod, const char* list) {
  std::vector<std::string> names;
  if (!pod.contains("spec")) return names;
  for (const auto& c : pod["spec"].value(list, json::array()))
    if (c.is_object()) names.push_back(c.value("name", ""));
  return names;
}

ApiError invalidOption(const std::string& pod, const std::string& field, const std::string& value,
                       const std::string& rule) {
  ResourceKind options;
  options.kind = "PodLogOptions";
  return invalid(options, pod,
                 {Cause{"FieldValueInvalid", "Invalid value: " + value + ": " + rule, field}});
}

// An integer query parameter at least `min`, or the 422 naming it.
ApiResult<std::optional<std::int64_t>> intParam(const RestRequest& request, const char* name,
                                                std::int64_t min, const char* rule) {
  if (!request.http.hasParam(name)) return std::optional<std::int64_t>();
  const std::string text = request.http.param(name);
  std::size_t used = 0;
  std::int64_t v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    return badRequest(fmt::format("{}: invalid integer \"{}\"", name, text));
  if (v < min) return invalidOption(request.name, name, text, rule);
  return std::optional<std::int64_t>(v);
}

bool flag(const RestRequest& request, const char* name) {
  const std::string v = request.http.param(name);
  return v == "true" || v == "1";
}

ApiResult<LogOptions> readOptions(ApiContext& context, const RestRequest& request,
                                  const json& pod) {
  LogOptions o;
  o.container = request.http.param("container");
  o.timestamps = flag(request, "timestamps");
  o.follow = flag(request, "follow");
  auto tail = intParam(request, "tailLines", 0, "must be greater than or equal to 0");
  if (!tail) return tail.error();
  o.tail_lines = tail.value();
  auto limit = intParam(request, "limitBytes", 1, "must be greater than 0");
  if (!limit) return limit.error();
  o.limit_bytes = limit.value();
  auto since_seconds = intParam(request, "sinceSeconds", 1, "must be greater than 0");
  if (!since_seconds) return since_seconds.error();
  const std::string since_time = request.http.param("sinceTime");
  if (since_seconds.value() && !since_time.empty())
    return invalidOption(request.name, "sinceSeconds", std::to_string(*since_seconds.value()),
                         "at most one of sinceTime or sinceSeconds may be specified");
  if (since_seconds.value()) {
    o.since = formatRfc3339(context.clock.now() - std::chrono::seconds(*since_seconds.value()));
  } else if (!since_time.empty()) {
    auto t = parseRfc3339(since_time);
    if (!t) return badRequest(fmt::format("sinceTime: \"{}\" is not an RFC 3339 time", since_time));
    o.since = formatRfc3339(*t);
  }
  o.since = logTimestamp(o.since);

  // The container: named, or the only one the pod has (kubectl names one, picking the
  // default-container annotation or the first, when the pod has several).
  const auto containers = containerNames(pod, "containers");
  const auto inits = containerNames(pod, "initContainers");
  if (o.container.empty()) {
    if (containers.size() != 1) {
      std::string message =
          fmt::format("a container name must be specified for pod {}, choose one of: [{}]",
                      request.name, fmt::join(containers, " "));
      if (!inits.empty())
        message += fmt::format(" or one of the init containers: [{}]", fmt::join(inits, " "));
      return badRequest(message);
    }
    o.container = containers.front();
  }
  const bool known = std::count(containers.begin(), containers.end(), o.container) +
                         std::count(inits.begin(), inits.end(), o.container) >
                     0;
  if (!known)
    return badRequest(
        fmt::format("container {} is not valid for pod {}", o.container, request.name));
  // Pods here never restart a container in place (a gang restarts by new pods), so there
  // is never a previous instance to read.
  if (flag(request, "previous"))
    return badRequest(fmt::format("previous terminated container \"{}\" in pod \"{}\" not found",
                                  o.container, request.name));
  return o;
}

std::string render(const LogLine& line, bool timestamps) {
  return timestamps ? line.time + " " + line.text + "\n" : line.text + "\n";
}

// The text of lines [from, end) under the options, at most `budget` bytes (limitBytes).
std::string textOf(const std::vector<LogLine>& lines, std::size_t from, const LogOptions& o,
                   std::optional<std::int64_t>& budget) {
  std::string out;
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (!o.since.empty() && lines[i].time < o.since) continue;
    out += render(lines[i], o.timestamps);
  }
  if (budget) {
    if (static_cast<std::int64_t>(out.size()) > *budget)
      out.resize(static_cast<std::size_t>(*budget));
    *budget -= static_cast<std::int64_t>(out.size());
  }
  return out;
}

// The first line shown: all of them, or the last tailLines.
std::size_t firstShown(const std::vector<LogLine>& lines, const LogOptions& o) {
  if (!o.tail_lines || static_cast<std::size_t>(*o.tail_lines) >= lines.size()) return 0;
  return lines.size() - static_cast<std::size_t>(*o.tail_lines);
}

// `kubectl logs -f`: the lines so far, then each new one as the pod's status changes,
// until the container terminates, the pod is deleted (or replaced by one of the same
// name), the byte limit is reached or the client leaves.
class LogFollowStream final : public http::ResponseStream,
                              public std::enable_shared_from_this<LogFollowStream> {
 public:
  LogFollowStream(ApiContext& context, const RestRequest& request, StoredObject pod,
                  LogOptions options)
      : context_(context),
        resource_(request.kind.storageName()),
        ns_(request.ns),
        name_(request.name),
        uid_(metaString(pod.object, "uid")),
        after_(pod.revision),
        pod_(std::move(pod.object)),
        options_(std::move(options)),
        budget_(options_.limit_bytes) {}

  void start(std::shared_ptr<http::StreamSink> sink) override {
    const auto lines = simulatedContainerLog(pod_, options_.container);
    sent_ = lines.size();
    if (!sink->push(textOf(lines, firstShown(lines, options_), options_, budget_)) || over()) {
      sink->finish();
      return;
    }
    if (containerState(pod_, options_.container) == "terminated") {
      sink->finish();
      return;
    }
    {
      std::lock_guard lock(mu_);
      sink_ = sink;
    }
    WatchOptions watch;
    watch.resource = resource_;
    watch.ns = ns_;
    watch.after_revision = after_;
    std::weak_ptr<LogFollowStream> weak = weak_from_this();
    watch.on_event = [weak](const WatchEvent& event) {
      if (auto self = weak.lock()) self->onEvent(event);
    };
    watch.on_close = [weak](const Error&) {
      if (auto self = weak.lock()) self->end();
    };
    auto started = context_.objects.store().watch(std::move(watch));
    if (!started) {
      end();
      return;
    }
    std::lock_guard lock(mu_);
    if (stopped_) return;
    watch_ = std::move(started.value());
  }

  void stop() override {
    std::unique_ptr<Watch> watch;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      sink_.reset();
      watch = std::move(watch_);
    }
    watch.reset();  // outside the lock: the store may be delivering an event right now
  }

 private:
  bool over() const { return budget_ && *budget_ <= 0; }

  void onEvent(const WatchEvent& event) {
    if (event.key().name != name_) return;  // before parsing: most events are other pods'
    const json& object = event.object();
    std::shared_ptr<http::StreamSink> sink;
    {
      std::lock_guard lock(mu_);
      sink = sink_;
    }
    if (!sink) return;
    if (event.type() == EventType::Deleted || metaString(object, "uid") != uid_) {
      end();
      return;
    }
    const auto lines = simulatedContainerLog(object, options_.container);
    if (lines.size() > sent_) {
      const std::string text = textOf(lines, sent_, options_, budget_);
      sent_ = lines.size();
      if (!text.empty() && !sink->push(text)) return end();
    }
    if (over() || containerState(object, options_.container) == "terminated") end();
  }

  void end() {
    std::shared_ptr<http::StreamSink> sink;
    {
      std::lock_guard lock(mu_);
      sink = std::move(sink_);
    }
    if (sink) sink->finish();
  }

  ApiContext& context_;
  std::string resource_, ns_, name_, uid_;
  Revision after_;
  json pod_;
  LogOptions options_;
  std::optional<std::int64_t> budget_;
  std::size_t sent_ = 0;  // lines already seen (whether shown or filtered out)

  std::mutex mu_;
  bool stopped_ = false;
  std::shared_ptr<http::StreamSink> sink_;
  std::unique_ptr<Watch> watch_;
};

}  // namespace

http::Response handlePodLog(ApiContext& context, const RestRequest& request) {
  auto found = context.objects.get(request.kind, request.ns, request.name);
  if (!found) return statusResponse(found.error());
  const json& pod = found->object;
  auto options = readOptions(context, request, pod);
  if (!options) return statusResponse(options.error());
  http::Response response;
  response.content_type = "text/plain";
  const std::string node = pod.contains("spec") ? pod["spec"].value("nodeName", "") : "";
  // Not yet on a node: no kubelet to ask, and the real server answers an empty log.
  if (node.empty()) return response;
  std::string reason;
  const std::string state = containerState(pod, options->container, &reason);
  if (state.empty() || state == "waiting")
    return statusResponse(badRequest(
        fmt::format("container \"{}\" in pod \"{}\" is waiting to start: {}", options->container,
                    request.name, reason.empty() ? "ContainerCreating" : reason)));
  if (options->follow && state == "running") {
    response.stream = std::make_shared<LogFollowStream>(context, request, std::move(found.value()),
                                                        std::move(options.value()));
    return response;
  }
  const auto lines = simulatedContainerLog(pod, options->container);
  std::optional<std::int64_t> budget = options->limit_bytes;
  response.body = textOf(lines, firstShown(lines, *options), *options, budget);
  return response;
}

}  // namespace troupe::apiserver
