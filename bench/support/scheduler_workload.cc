#include "bench/support/scheduler_workload.h"

namespace troupe::bench {

using nlohmann::json;

json queueObject(const std::string& name, int guaranteed_gpus) {
  json q = {{"apiVersion", "troupe.dev/v1alpha1"},
            {"kind", "Queue"},
            {"metadata", {{"name", name}}},
            {"spec", json::object()}};
  if (guaranteed_gpus > 0) {
    q["spec"]["resources"] = {{"nvidia.com/gpu", {{"guaranteed", guaranteed_gpus}}}};
    q["spec"]["preemption"] = {{"reclaim", true}};
  }
  return q;
}

json trainingJobObject(const std::string& name, const std::string& queue_name, int replicas,
                       int gpus) {
  json resources = gpus > 0 ? json{{"limits", {{"nvidia.com/gpu", gpus}}}}
                            : json{{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}};
  return {{"apiVersion", "troupe.dev/v1alpha1"},
          {"kind", "TrainingJob"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"queue", queue_name},
            {"replicas", replicas},
            {"template",
             {{"spec",
               {{"restartPolicy", "Never"},
                {"terminationGracePeriodSeconds", 0},
                {"containers", json::array({{{"name", "main"},
                                             {"image", "registry.example.com/train:1"},
                                             {"resources", resources}}})}}}}}}}};
}

}  // namespace troupe::bench
