#include "device.h"

#include <vector>

namespace loom {

DeviceResource::DeviceResource(std::shared_ptr<DeviceContext> ctx) : ctx_(std::move(ctx)) {
  ctx_->resources_.insert(this);
}

DeviceResource::~DeviceResource() {
  // Derived destructors call release(); this only guards the bookkeeping.
  ctx_->resources_.erase(this);
}

void DeviceResource::release() noexcept {
  if (released_) return;
  released_ = true;
  freeNative();
  ctx_->resources_.erase(this);
}

void DeviceContext::release() noexcept {
  if (released_) return;
  // Copy first: each release() erases itself from the set.
  std::vector<DeviceResource*> owned(resources_.begin(), resources_.end());
  for (DeviceResource* r : owned) r->release();
  released_ = true;
  freeNative();
}

std::string joinOptions(const std::vector<std::string>& options) {
  std::string joined;
  for (const std::string& o : options) {
    if (!joined.empty()) joined += ' ';
    joined += o;
  }
  return joined;
}

}  // namespace loom
