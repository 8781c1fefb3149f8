// The CUPTI collector: the CUDA injection entry point (InitializeInjection, loaded by the driver
// through CUDA_INJECTION64_PATH). The only file that calls cupti* functions: it sets CUPTI's
// clock to the collector's, hands CUPTI buffers from a pool, converts completed buffers with
// ActivityConverter, flushes at cudaDeviceReset / context teardown / exit, appends the records
// to the process's part through a PartHook, and disables CUPTI at the end.
#include <cupti.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "collector_config.hpp"
#include "collector_core.hpp"
#include "cupti_activity.hpp"
#include "cupti_api_filter.hpp"
#include "cupti_buffer_pool.hpp"
#include "log.hpp"
#include "cupti_records.hpp"
#include "gpu_schedule.hpp"
#include "gpu_trace_control.hpp"

namespace amdahl::profiler::cupti {
namespace {

// CUPTI's kinds, indexed by cupti_activity.hpp's Kind (the order, and why these, are there).
constexpr CUpti_ActivityKind kKinds[] = {
    CUPTI_ACTIVITY_KIND_DEVICE,           CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
    CUPTI_ACTIVITY_KIND_MEMCPY,           CUPTI_ACTIVITY_KIND_MEMCPY2,
    CUPTI_ACTIVITY_KIND_MEMSET,           CUPTI_ACTIVITY_KIND_RUNTIME,
    CUPTI_ACTIVITY_KIND_DRIVER,           CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,  CUPTI_ACTIVITY_KIND_CUDA_EVENT,
    CUPTI_ACTIVITY_KIND_OVERHEAD,
};
static_assert(std::size(kKinds) == kKindCount, "one CUPTI kind per Kind");
static_assert(kKinds[static_cast<int>(Kind::CudaEvent)] == CUPTI_ACTIVITY_KIND_CUDA_EVENT);
static_assert(kKinds[static_cast<int>(Kind::Runtime)] == CUPTI_ACTIVITY_KIND_RUNTIME);
static_assert(kKinds[static_cast<int>(Kind::Driver)] == CUPTI_ACTIVITY_KIND_DRIVER);
static_assert(kKinds[static_cast<int>(Kind::Device)] == CUPTI_ACTIVITY_KIND_DEVICE);

struct CoreInterner final : Interner {
  format::StrId intern(std::string_view s) noexcept override { return profiler::intern(s); }
};

const char* api_name_lookup(format::ApiKind api, std::uint32_t cbid) noexcept {
  const char* name = nullptr;
  const auto domain = api == format::ApiKind::Runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS) return nullptr;
  return name;
}

// Everything the collector holds. Allocated once and never freed: CUPTI's worker thread and the
// exit handlers may still run while static destructors do.
struct State {
  State(std::size_t buffer_bytes, std::size_t max_buffers)
      : pid(static_cast<std::uint32_t>(getpid())),
        pool(buffer_bytes, max_buffers),
        converter(pid, interner, &api_name_lookup) {}

  std::uint32_t pid;
  BufferPool pool;
  CoreInterner interner;
  std::mutex mu;                 // guards converter, records, dropped, buffers_completed
  ActivityConverter converter;
  format::RecordSet records;     // everything converted so far (each part write gets it all)
  std::uint64_t dropped = 0;
  std::uint64_t buffers_completed = 0;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::atomic<bool> torn_down{false};
  std::atomic<bool> finishing{false};
  bool exit_sync = true;
  ActivityControl* activity = nullptr;  // the kinds on, the API selection (cupti_activity.hpp)
  TraceControl* control = nullptr;  // a window schedule (--gpu-steps FROM:TO, --gpu-sample): opens, closes, detaches
  GpuSchedule schedule;
};

State* g_state = nullptr;

bool ok(CUptiResult r, const char* what) noexcept {
  if (r == CUPTI_SUCCESS) return true;
  const char* msg = nullptr;
  cuptiGetResultString(r, &msg);
  log(LogLevel::Warn, "%s failed: %s", what, msg ? msg : "unknown error");
  return false;
}

bool in_owner_process() noexcept {
  return g_state != nullptr && static_cast<std::uint32_t>(getpid()) == g_state->pid;
}

// CUPTI is attached (not finalized between two sampled windows, not torn down): only then may
// it be called (a cupti* call after cuptiFinalize would attach it again).
bool cupti_live() noexcept {
  return g_state != nullptr && !g_state->torn_down.load() && (g_state->control == nullptr || g_state->control->attached());
}

std::uint64_t CUPTIAPI timestamp_callback() { return static_cast<std::uint64_t>(now_ns()); }

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *max_records = 0;
  *buffer = g_state ? g_state->pool.take() : nullptr;
  *size = *buffer ? g_state->pool.buffer_bytes() : 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  if (g_state == nullptr) return;
  try {
    std::size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
    std::lock_guard<std::mutex> lock(g_state->mu);
    CUpti_Activity* rec = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
      g_state->converter.convert(rec, g_state->records);
    }
    g_state->dropped += dropped;
    ++g_state->buffers_completed;
  } catch (...) {
    // Out of memory while appending: the records of this buffer are lost; keep the host alive.
  }
  g_state->pool.give_back(buffer);
}

// Blocks until the calling thread's current context is idle, so a forced flush finds complete
// records. Uses the driver already loaded in the process (never loads one).
void sync_current_context() noexcept {
  if (g_state == nullptr || !g_state->exit_sync) return;
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == nullptr) return;
  using GetCurrent = int (*)(void**);
  using Sync = int (*)();
  auto get_current = reinterpret_cast<GetCurrent>(dlsym(lib, "cuCtxGetCurrent"));
  auto sync = reinterpret_cast<Sync>(dlsym(lib, "cuCtxSynchronize"));
  void* ctx = nullptr;
  if (get_current && sync && get_current(&ctx) == 0 && ctx != nullptr) sync();
  dlclose(lib);
}

void flush(bool forced) noexcept {
  if (!cupti_live()) return;
  ok(cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0), "cuptiActivityFlushAll");
}

// Flush, then have the core write the part (which calls part_hook).
void flush_and_write(const char* why, bool sync_first) noexcept {
  if (!in_owner_process()) return;
  log(LogLevel::Debug, "flush and write part (%s)", why);
  if (sync_first) sync_current_context();
  flush(true);
  write_part_now();
}

// Stops CUPTI collection so the rest of the process (other exit handlers, the CUDA runtime's
// teardown) runs at full speed.
void tear_down() noexcept {
  if (!cupti_live() || g_state->torn_down.exchange(true)) return;
  g_state->activity->tear_down();
}

void at_exit() {
  if (!in_owner_process() || g_state->finishing.exchange(true)) return;
  flush_and_write("exit", true);
  tear_down();
}

void part_hook(format::RecordSet& out) noexcept {
  if (!in_owner_process()) return;
  try {
    // Not forced: the background flusher writes parts while the GPU may run a whole step
    // behind the host, and a forced flush hands back the records of every op still in flight
    // with no timestamps (they were dropped: on the H200 one step of ResNet-50's kernels in
    // every 4 went missing). The final writes force their flush after synchronizing the
    // context (flush_and_write).
    flush(false);
    std::lock_guard<std::mutex> lock(g_state->mu);
    format::RecordSet mine;
    mine.gpu_ops = g_state->records.gpu_ops;
    mine.api_calls = g_state->records.api_calls;
    mine.syncs = g_state->records.syncs;
    mine.event_records = g_state->records.event_records;
    mine.devices = g_state->records.devices;
    order_records(mine);
    out.gpu_ops.insert(out.gpu_ops.end(), mine.gpu_ops.begin(), mine.gpu_ops.end());
    out.api_calls.insert(out.api_calls.end(), mine.api_calls.begin(), mine.api_calls.end());
    out.syncs.insert(out.syncs.end(), mine.syncs.begin(), mine.syncs.end());
    out.event_records.insert(out.event_records.end(), mine.event_records.begin(), mine.event_records.end());
    out.devices.insert(out.devices.end(), mine.devices.begin(), mine.devices.end());

    auto diags = g_state->converter.stats().as_diagnostics();
    if (g_state->dropped) diags.emplace_back("cupti.dropped_records", g_state->dropped);
    if (g_state->pool.exhausted()) diags.emplace_back("cupti.buffer_pool_exhausted", g_state->pool.exhausted());
    if (mine.devices.empty()) diags.emplace_back("cupti.no_device", 1);
    if (g_state->control != nullptr) {  // sampled / FROM:TO windows: how often CUPTI really let go
      if (const auto n = g_state->control->detaches()) diags.emplace_back("cupti.detaches", n);
      if (const auto n = g_state->control->attaches()) diags.emplace_back("cupti.attaches", n);
      if (const auto n = g_state->control->control_us()) diags.emplace_back("cupti.window_control_us", n);
    }
    for (const auto& [key, n] : diags) {
      format::DiagRec d;
      d.pid = g_state->pid;
      d.key = profiler::intern(key);
      d.count = n;
      out.diagnostics.push_back(d);
    }
  } catch (...) {
    // Out of memory: the part is written without (some of) the GPU records.
  }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      // The context's records must leave CUPTI before its memory goes. No driver call here:
      // the driver is in the middle of destroying the context.
      flush_and_write("context destroy", false);
    }
    return;
  }
  const auto* info = static_cast<const CUpti_CallbackData*>(data);
  if (info == nullptr) return;
  if (info->callbackSite == CUPTI_API_EXIT) {
    // A closed window detaches here (cuptiFinalize is allowed from a callback's exit site).
    if (g_state->control != nullptr && in_owner_process()) g_state->control->on_api_exit();
    return;
  }
  if (info->callbackSite != CUPTI_API_ENTER) return;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    flush_and_write("cudaDeviceReset", true);
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
             (cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset ||
              cbid == CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2)) {
    flush_and_write("cuDevicePrimaryCtxReset", true);
  }
}

void enable_reset_callbacks(CUpti_SubscriberHandle sub) noexcept;

bool subscribe() noexcept {
  CUpti_SubscriberHandle sub = nullptr;
  if (!ok(cuptiSubscribe(&sub, &on_callback, nullptr), "cuptiSubscribe (flush at cudaDeviceReset)")) return false;
  g_state->subscriber = sub;
  enable_reset_callbacks(sub);
  return true;
}

// The callbacks an attached CUPTI keeps between windows: flush at resets and context teardown.
void enable_reset_callbacks(CUpti_SubscriberHandle sub) noexcept {
  ok(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020),
     "cuptiEnableCallback(cudaDeviceReset)");
  ok(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset),
     "cuptiEnableCallback(cuDevicePrimaryCtxReset)");
  ok(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxReset_v2),
     "cuptiEnableCallback(cuDevicePrimaryCtxReset_v2)");
  ok(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
     "cuptiEnableCallback(context destroy)");
}

// Clock, thread ids and buffers: at initialization and again at each attach after a finalize.
const char* register_activity_callbacks(CUptiResult& r) noexcept {
  // AMDAHL_CUPTI_TIMESTAMP=0 (overhead experiments only): CUPTI's own clock, not related to the
  // host ranges.
  r = CUPTI_SUCCESS;
  if (collector_config().cupti_timestamp &&
      (r = cuptiActivityRegisterTimestampCallback(&timestamp_callback)) != CUPTI_SUCCESS) {
    return "cuptiActivityRegisterTimestampCallback";
  }
  if ((r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) != CUPTI_SUCCESS) return "cuptiSetThreadIdType";
  if ((r = cuptiActivityRegisterCallbacks(&buffer_requested, &buffer_completed)) != CUPTI_SUCCESS) {
    return "cuptiActivityRegisterCallbacks";
  }
  return nullptr;
}

// Launch mode: an activity record only for the calls traced_in_launch_mode() selects, enabled
// one callback id at a time (the RUNTIME / DRIVER kinds stay off: they would enable them all).
// `late`: CUDA is already running (the GPU trace window opens mid-run). Enabling runtime calls
// one by one then records nothing (seen on the H200 with CUPTI 13.0: the driver calls came, the
// runtime calls did not), so the whole RUNTIME kind is enabled and the calls not wanted are
// switched off one by one, the way cuptiActivityEnableRuntimeApi documents for small exclusions.
LaunchApis enable_launch_apis(bool driver, bool late) noexcept {
  const char* name = nullptr;
  LaunchApis n;
  const bool all_first = late && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) == CUPTI_SUCCESS;
  for (std::uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    const bool want = traced_in_launch_mode(name);
    if (all_first) {
      if (!want) cuptiActivityEnableRuntimeApi(cbid, 0);
      else ++n.runtime;
    } else if (want && cuptiActivityEnableRuntimeApi(cbid, 1) == CUPTI_SUCCESS) {
      ++n.runtime;
    }
  }
  for (std::uint32_t cbid = 1; driver && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || name == nullptr) continue;
    if (traced_in_launch_mode(name) && cuptiActivityEnableDriverApi(cbid, 1) == CUPTI_SUCCESS) ++n.driver;
  }
  return n;
}

// CuptiActivityApi with the real calls (the orchestration is cupti_activity.hpp; the sampled-
// tracing state machine gpu_trace_control.hpp; docs/cupti.md, "Sampled tracing").
struct RealActivityApi final : CuptiActivityApi {
  int kind_code(Kind k) const noexcept override { return static_cast<int>(kKinds[static_cast<int>(k)]); }
  bool enable(Kind k, const char** error) noexcept override {
    const CUptiResult r = cuptiActivityEnable(kKinds[static_cast<int>(k)]);
    if (r == CUPTI_SUCCESS) return true;
    cuptiGetResultString(r, error);
    return false;
  }
  void disable(Kind k) noexcept override { cuptiActivityDisable(kKinds[static_cast<int>(k)]); }
  void flush(bool forced) noexcept override { cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0); }
  LaunchApis enable_launch_apis(bool driver, bool late) noexcept override {
    return cupti::enable_launch_apis(driver, late);
  }
  const char* register_callbacks(const char** error) noexcept override {
    CUptiResult r = CUPTI_SUCCESS;
    const char* failed = register_activity_callbacks(r);
    if (failed != nullptr) cuptiGetResultString(r, error);
    return failed;
  }
  bool subscribe() noexcept override { return cupti::subscribe(); }
  void unsubscribe() noexcept override {
    cuptiUnsubscribe(g_state->subscriber);
    g_state->subscriber = nullptr;
  }
  bool subscribed() const noexcept override { return g_state->subscriber != nullptr; }
  bool arm_detach() noexcept override {
    return g_state->subscriber != nullptr &&
           ok(cuptiEnableDomain(1, g_state->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain(runtime)") &&
           ok(cuptiEnableDomain(1, g_state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain(driver)");
  }
  void disarm_detach() noexcept override {
    if (g_state->subscriber == nullptr) return;
    cuptiEnableDomain(0, g_state->subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
    cuptiEnableDomain(0, g_state->subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
    enable_reset_callbacks(g_state->subscriber);
  }
  bool finalize() noexcept override {
    if (!ok(cuptiFinalize(), "cuptiFinalize")) return false;
    g_state->subscriber = nullptr;
    {
      std::lock_guard<std::mutex> lock(g_state->mu);
      g_state->converter.new_correlation_epoch();  // the window's buffers were flushed before
    }
    return true;
  }
  void sync_context() noexcept override { sync_current_context(); }
};

// The core's GPU-window hook: called on the thread that started the window's first step (true)
// or the first step after it (false).
void on_gpu_window(bool on) noexcept {
  if (!in_owner_process() || g_state->torn_down.load() || g_state->control == nullptr) return;
  if (on) g_state->control->open();
  else g_state->control->close();
}

// The time-based fallback of a sampled schedule: in a program that has started no `step` range
// by fallback_ms, the start-up window closes and the last on_ms of every period_ms is traced.
// Once a step has started the step schedule owns the windows: this thread closes the time
// window it opened, if any, and ends.
void time_fallback_loop() noexcept {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const GpuSchedule s = g_state->schedule;
  std::this_thread::sleep_for(std::chrono::milliseconds(s.fallback_ms));
  bool startup = true, open = false;
  for (;;) {
    if (g_state->torn_down.load() || g_state->finishing.load()) return;
    const auto ms = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count());
    if (gpu_steps_seen() > 0) {
      if (open) {
        mark_gpu_trace(false, -1 - static_cast<std::int64_t>(ms));
        on_gpu_window(false);
      }
      return;
    }
    const bool want = time_window_open(s, ms) && !startup;
    if (startup || want != open) {
      startup = false;
      open = want;
      mark_gpu_trace(open, -1 - static_cast<std::int64_t>(ms));
      on_gpu_window(open);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int initialize() noexcept {
  if (g_state != nullptr) return 1;
  if (!collector_enabled()) return 1;  // not under `amdahl profile`: stay out of the way
  const CollectorConfig& cfg = collector_config();
  if (!cfg.cupti) {
    log(LogLevel::Info, "AMDAHL_CUPTI=0: GPU activity not collected");
    return 1;
  }
  std::uint32_t version = 0;
  if (cuptiGetVersion(&version) == CUPTI_SUCCESS && version / 100 != CUPTI_API_VERSION / 100) {
    log(LogLevel::Warn, "CUPTI library version %u differs from the headers amdahl was built with (%u); "
        "record layouts may differ", version, static_cast<unsigned>(CUPTI_API_VERSION));
  }
  try {
    g_state = new State(cfg.cupti_buffer_kb * 1024, cfg.cupti_max_buffers);
  } catch (...) {
    log(LogLevel::Error, "out of memory: GPU activity not collected");
    return 1;
  }
  g_state->exit_sync = cfg.cupti_exit_sync;
  // Two buffers up front, so the first requests do not allocate on a launching thread.
  std::uint8_t* b1 = g_state->pool.take();
  std::uint8_t* b2 = g_state->pool.take();
  g_state->pool.give_back(b1);
  g_state->pool.give_back(b2);

  // The clock first: every record after this is on the collector's CLOCK_MONOTONIC. Records on
  // another clock could not be related to the NVTX ranges, so without it nothing is collected.
  // Same for buffers and for thread ids (gettid, as the NVTX side records them).
  const char* failed = nullptr;
  CUptiResult r = CUPTI_SUCCESS;
  failed = register_activity_callbacks(r);
  if (failed) {
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    log(LogLevel::Warn, "CUPTI unavailable (%s: %s): this process has no GPU records", failed,
        msg ? msg : "unknown error");
    count_diagnostic("cupti.unavailable");
    return 1;
  }
  std::optional<ApiTrace> api = parse_api_trace(cfg.cupti_api);
  if (!api) {
    log(LogLevel::Warn, "AMDAHL_CUPTI_API=%s is not launch, all or none: using launch", cfg.cupti_api.c_str());
    api = ApiTrace::Launch;
  }
  // Never freed, as State: CUPTI's threads and the exit handlers may still call in.
  auto* real_api = new (std::nothrow) RealActivityApi;
  g_state->activity = real_api == nullptr ? nullptr
      : new (std::nothrow) ActivityControl(*real_api, *api, cfg.cupti_driver, cfg.cupti_subscribe, &count_diagnostic);
  if (g_state->activity == nullptr) {
    log(LogLevel::Error, "out of memory: GPU activity not collected");
    return 1;
  }
  ActivityControl& activity = *g_state->activity;
  if (gpu_window_deferred() && cfg.gpu_steps) {
    // --gpu-steps FROM:TO / --gpu-sample: only the device records now; the rest from a window's
    // first step on, detached between windows.
    g_state->schedule = cfg.gpu_schedule.value_or(GpuSchedule{});
    // A sampled schedule traces from here to step SKIP (the start-up window: short programs and
    // programs without steps keep their GPU records); a FROM:TO window waits for step FROM.
    const bool startup = g_state->schedule.kind == ScheduleKind::Sample;
    try {  // never freed, as State: CUPTI's threads and the exit handlers may still call in
      g_state->control = new TraceControl(activity, startup);
    } catch (...) {
      g_state->control = nullptr;
    }
    activity.enable_kinds(!startup && g_state->control != nullptr, false);
    if (startup && g_state->control != nullptr) mark_gpu_trace(true, -1);
    if (g_state->control != nullptr) register_gpu_window_hook(&on_gpu_window);
    if (g_state->control != nullptr && g_state->schedule.kind == ScheduleKind::Sample) {
      try {
        std::thread(&time_fallback_loop).detach();
      } catch (...) {
        log(LogLevel::Warn, "no time-based GPU windows (thread not started)");
      }
    }
  } else {
    activity.enable_kinds(false, false);
  }
  if (const std::size_t ms = cfg.cupti_flush_ms; ms > 0) {
    ok(cuptiActivityFlushPeriod(static_cast<std::uint32_t>(ms)), "cuptiActivityFlushPeriod");
  }
  if (cfg.cupti_subscribe) subscribe();  // =0: no flush at cudaDeviceReset (experiments)
  if (g_state->control != nullptr && g_state->subscriber == nullptr) {
    log(LogLevel::Info, "no CUPTI subscriber: a closed GPU window leaves CUPTI attached (not detached)");
  }
  register_part_hook(&part_hook);
  std::atexit(&at_exit);
  log(LogLevel::Info, "CUPTI collection started (CUPTI %u, buffers of %zu KiB, API records: %s, %u runtime + %u driver calls)",
      version, g_state->pool.buffer_bytes() / 1024, api_trace_name(activity.trace()), activity.launch_apis().runtime,
      activity.launch_apis().driver);
  return 1;
}

}  // namespace
}  // namespace amdahl::profiler::cupti

// The CUDA injection entry point: called by the CUDA driver when it initialises, in every
// process that has CUDA_INJECTION64_PATH pointing at this library. Returns 1 (success) even when
// it chose not to collect; never throws.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  try {
    return amdahl::profiler::cupti::initialize();
  } catch (...) {
    return 1;
  }
}
