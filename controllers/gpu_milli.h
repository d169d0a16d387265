#pragma once

#include <cstdint>

#include "controllers/object_facts.h"
#include "queueing/resource_vector.h"

// troupe.dev/gpu-milli: GPUs counted in thousandths, so that quota and node capacity count
// a pod asking a fraction of one GPU (troupe.dev/gpu-fraction) exactly. The engine treats it
// like any resource; the operator derives it from nvidia.com/gpu and the annotation, and no
// object sets it itself.
namespace troupe::controllers {

// Gives `amounts` (a pod's requests or a node's allocatable) its thousandths: 1000 per
// nvidia.com/gpu, plus `fraction_milli` (a pod's fraction, else 0). A troupe.dev/gpu-milli
// the object names itself is replaced. Nothing is added when both are 0.
void addGpuMilli(NamedAmounts& amounts, std::int32_t fraction_milli);

// A queue's quota list (guaranteed, limit or lendingLimit) as the engine reads it: when
// it names nvidia.com/gpu, the thousandths slot gets 1000 times that. Returns false when
// the slot table has no room left for troupe.dev/gpu-milli.
bool mirrorGpuQuota(queueing::ResourceVector& quota, queueing::ResourceNames& names);

}  // namespace troupe::controllers
