// The orchestration of CUPTI activity collection (see cupti_activity.hpp). No cupti* calls here.
#include "cupti_activity.hpp"

#include <string>

#include "log.hpp"

namespace amdahl::profiler::cupti {

void ActivityControl::enable_kinds(bool devices_only, bool late) noexcept {
  for (std::size_t i = 0; i < kKindCount; ++i) {
    const auto k = static_cast<Kind>(i);
    if ((enabled_mask_ | failed_mask_) & bit(k)) continue;
    if (devices_only && k != Kind::Device) continue;
    const bool api_kind = k == Kind::Runtime || k == Kind::Driver;
    if (k == Kind::Driver && !driver_) continue;
    if (api_kind && trace_ != ApiTrace::All) continue;  // Launch: per call id; None: none
    const char* msg = nullptr;
    if (api_.enable(k, &msg)) {
      enabled_mask_ |= bit(k);
      continue;
    }
    // Fail soft: collection goes on without this kind (logged once: a refused kind is not retried).
    failed_mask_ |= bit(k);
    const int code = api_.kind_code(k);
    if (k == Kind::CudaEvent) {
      log(LogLevel::Warn, "could not enable CUPTI activity kind CUDA_EVENT (%s): no event records, so waits on "
          "CUDA events are not joined to the work they wait for", msg ? msg : "unknown error");
    } else {
      log(LogLevel::Warn, "could not enable CUPTI activity kind %d (%s)", code, msg ? msg : "unknown error");
    }
    try {
      count_("cupti.kind_not_enabled." + std::to_string(code), 1);
    } catch (...) {
    }
  }
  if (devices_only || trace_ != ApiTrace::Launch) return;
  launch_ = api_.enable_launch_apis(driver_, late);
  if (launch_.runtime == 0) {
    log(LogLevel::Warn, "no runtime API call could be traced one by one: GPU work is not linked to stages");
    count_("cupti.launch_apis_unavailable", 1);
  }
}

void ActivityControl::disable_kinds() noexcept {
  api_.flush(true);
  for (std::size_t i = 0; i < kKindCount; ++i) {
    const auto k = static_cast<Kind>(i);
    if (k == Kind::Device || !(enabled_mask_ & bit(k))) continue;
    api_.disable(k);
    enabled_mask_ &= ~bit(k);
  }
  if (trace_ == ApiTrace::Launch) {
    api_.disable(Kind::Runtime);
    api_.disable(Kind::Driver);
  }
}

void ActivityControl::tear_down() noexcept {
  api_.flush(true);
  for (std::size_t i = 0; i < kKindCount; ++i) {
    if (enabled_mask_ & bit(static_cast<Kind>(i))) api_.disable(static_cast<Kind>(i));
  }
  if (trace_ == ApiTrace::Launch) {  // turns the one-by-one enabled calls off too
    api_.disable(Kind::Runtime);
    api_.disable(Kind::Driver);
  }
  if (api_.subscribed()) api_.unsubscribe();
  log(LogLevel::Debug, "CUPTI collection stopped");
}

bool ActivityControl::attach() {
  const char* msg = nullptr;
  if (const char* failed = api_.register_callbacks(&msg)) {
    log(LogLevel::Warn, "CUPTI could not attach again (%s: %s): no more GPU records in this process", failed,
        msg ? msg : "unknown error");
    count_("cupti.reattach_failed", 1);
    return false;
  }
  return !resubscribe_ || api_.subscribe();
}

void ActivityControl::enable_tracing() {
  enable_kinds(false, true);
  log(LogLevel::Debug, "GPU trace window opened (%u runtime + %u driver API calls traced)", launch_.runtime,
      launch_.driver);
}

void ActivityControl::disable_tracing() {
  api_.sync_context();  // the window's last kernels finish, so their records are complete
  disable_kinds();
}

bool ActivityControl::finalize() {
  api_.flush(true);
  if (!api_.finalize()) return false;
  // CUPTI forgot every kind; DEVICE records came at the first attach and are not asked again.
  enabled_mask_ &= bit(Kind::Device);
  log(LogLevel::Debug, "GPU trace window closed: CUPTI detached");
  return true;
}

}  // namespace amdahl::profiler::cupti
