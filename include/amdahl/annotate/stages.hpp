// amdahl's C++ annotation API (namespace amdahl::annotate), what an instrumented program uses:
// RAII ranges in the `amdahl` domain (the canonical stages, user stages, `step`, `wait`) and the
// `produce`/`consume` marks that carry an int64 item id. Header-only over the nvtx3 C API, so
// C++ and CUDA (nvcc) sources can use it; link the `amdahl_annotate` CMake target. Without an
// NVTX tool attached every call is a cheap no-op. See docs/annotation-guide.md.
#pragma once

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

#include <nvtx3/nvToolsExt.h>

namespace amdahl::annotate {

// The canonical stage vocabulary (docs/architecture.md, instrumentation contract).
enum class Stage : int { disk_io, cpu_preprocess, h2d, gpu_compute, d2h, communication };

constexpr const char* stage_name(Stage s) noexcept {
  switch (s) {
    case Stage::disk_io: return "disk_io";
    case Stage::cpu_preprocess: return "cpu_preprocess";
    case Stage::h2d: return "h2d";
    case Stage::gpu_compute: return "gpu_compute";
    case Stage::d2h: return "d2h";
    case Stage::communication: return "communication";
  }
  return "unknown";
}

namespace detail {

// Every fixed name the helpers emit, registered once per process (nvtxDomainRegisterStringA).
enum class Name : int {
  disk_io, cpu_preprocess, h2d, gpu_compute, d2h, communication,  // same order as Stage
  step, wait, produce, consume, count
};
inline constexpr const char* kNameText[] = {"disk_io", "cpu_preprocess", "h2d", "gpu_compute",
                                            "d2h", "communication", "step", "wait", "produce",
                                            "consume"};
// ARGB colors, only for viewers such as Nsight Systems.
inline constexpr std::uint32_t kNameColor[] = {0xFF8E6C8A, 0xFF4C72B0, 0xFFDD8452, 0xFF55A868,
                                               0xFFC44E52, 0xFF937860, 0xFF999999, 0xFFCCCCCC,
                                               0xFF000000, 0xFF000000};
static_assert(sizeof(kNameText) / sizeof(kNameText[0]) == static_cast<int>(Name::count));

struct Registry {
  nvtxDomainHandle_t domain = nullptr;
  nvtxStringHandle_t names[static_cast<int>(Name::count)] = {};
};

inline const Registry& registry() noexcept {
  static const Registry r = [] {
    Registry out;
    out.domain = nvtxDomainCreateA("amdahl");
    for (int i = 0; i < static_cast<int>(Name::count); ++i) {
      out.names[i] = nvtxDomainRegisterStringA(out.domain, kNameText[i]);
    }
    return out;
  }();
  return r;
}

inline nvtxEventAttributes_t attributes(Name n) noexcept {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = kNameColor[static_cast<int>(n)];
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = registry().names[static_cast<int>(n)];
  return a;
}

inline void push(Name n) noexcept {
  const nvtxEventAttributes_t a = attributes(n);
  nvtxDomainRangePushEx(registry().domain, &a);
}

inline void mark(Name n, std::int64_t item) noexcept {
  nvtxEventAttributes_t a = attributes(n);
  a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  a.payload.llValue = item;
  nvtxDomainMarkEx(registry().domain, &a);
}

}  // namespace detail

// The `amdahl` domain handle (created on first use).
inline nvtxDomainHandle_t domain() noexcept { return detail::registry().domain; }

// A push/pop range in the `amdahl` domain, closed when it goes out of scope. Open and close it
// on the same thread. Ranges nest; the innermost stage owns its time.
class [[nodiscard]] Range {
 public:
  explicit Range(Stage s) noexcept { detail::push(static_cast<detail::Name>(s)); }
  // A stage range carrying an int64 payload (a `communication` range: the bytes it moved).
  Range(Stage s, std::int64_t payload) noexcept {
    nvtxEventAttributes_t a = detail::attributes(static_cast<detail::Name>(s));
    a.payloadType = NVTX_PAYLOAD_TYPE_INT64;
    a.payload.llValue = payload;
    nvtxDomainRangePushEx(domain(), &a);
  }
  // A user stage (any non-canonical name); the text is copied by the tool, not kept.
  explicit Range(const char* user_stage) noexcept {
    nvtxEventAttributes_t a{};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = user_stage;
    nvtxDomainRangePushEx(domain(), &a);
  }
  ~Range() { nvtxDomainRangePop(domain()); }
  Range(const Range&) = delete;
  Range& operator=(const Range&) = delete;
  Range(Range&&) = delete;
  Range& operator=(Range&&) = delete;

 private:
  friend Range step_range() noexcept;
  friend Range wait_range() noexcept;
  explicit Range(detail::Name n) noexcept { detail::push(n); }
};

// One training step; open it on the thread that drives training, around the whole step.
inline Range step_range() noexcept { return Range(detail::Name::step); }

// Blocked time that is only a consequence of another thread: around a blocking take from a
// queue (consumer) or a blocked put into a full one (producer).
inline Range wait_range() noexcept { return Range(detail::Name::wait); }

// Non-RAII forms, for code that opens and closes a range in different functions (observer
// callbacks). Push and pop on the same thread, balanced; prefer Range where a scope fits.
inline void push_stage(Stage s) noexcept { detail::push(static_cast<detail::Name>(s)); }
inline void push_step() noexcept { detail::push(detail::Name::step); }
inline void push_wait() noexcept { detail::push(detail::Name::wait); }
inline void pop_range() noexcept { nvtxDomainRangePop(domain()); }

// Item `item` is ready for its consumer: emit just before making it visible (e.g. under the
// queue lock, before the push).
inline void produce(std::int64_t item) noexcept { detail::mark(detail::Name::produce, item); }

// Item `item` was taken: emit right after the take (after the wait range closed).
inline void consume(std::int64_t item) noexcept { detail::mark(detail::Name::consume, item); }

// Names the calling thread for the OS (pthread_setname_np, at most 15 characters kept) and for
// NVTX tools (nvtxNameOsThreadA). Do not call it on the main thread: that renames the process.
inline void name_this_thread(const char* name) noexcept {
  char short_name[16] = {};
  for (int i = 0; i < 15 && name[i] != '\0'; ++i) short_name[i] = name[i];
  pthread_setname_np(pthread_self(), short_name);
  nvtxNameOsThreadA(static_cast<std::uint32_t>(::syscall(SYS_gettid)), name);
}

}  // namespace amdahl::annotate
