// The NVTX injection entry point (InitializeInjectionNvtx2) and the NVTX callbacks: decodes
// event attributes (message, category, payload) and forwards to the collector core's
// recording functions. Loaded through NVTX_INJECTION64_PATH.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstddef>

#include "collector_state.hpp"
#include "log.hpp"
#include "wide_text.hpp"

namespace amdahl::profiler::detail {
namespace {

using format::Payload;
using format::PayloadKind;
using format::StrId;

// Handles given to the application encode interned string ids (0 = default domain / "").
StrId handle_id(const void* handle) noexcept {
  return static_cast<StrId>(reinterpret_cast<std::uintptr_t>(handle));
}
template <class Handle>
Handle id_handle(StrId id) noexcept {
  return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(id));
}

StrId intern_wide(const wchar_t* s) noexcept {
  if (s == nullptr) return format::kNoString;
  try {
    return intern(wide_to_utf8(s));
  } catch (...) {
    return format::kNoString;
  }
}

StrId intern_ascii(const char* s) noexcept { return s == nullptr ? format::kNoString : intern(s); }

constexpr std::size_t kPayloadEnd =
    offsetof(nvtxEventAttributes_t, payload) + sizeof(nvtxEventAttributes_t::payload);
constexpr std::size_t kMessageEnd =
    offsetof(nvtxEventAttributes_t, message) + sizeof(nvtxEventAttributes_t::message);

StrId message_of(ThreadState* ts, const nvtxEventAttributes_t* a) noexcept {
  if (a == nullptr || a->size < kMessageEnd) return format::kNoString;
  switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: return intern_cached(ts, a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return intern_wide(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: return handle_id(a->message.registered);
    default: return format::kNoString;
  }
}

Payload payload_of(const nvtxEventAttributes_t* a) noexcept {
  Payload p;
  if (a == nullptr || a->size < kPayloadEnd) return p;
  switch (a->payloadType) {
    case NVTX_PAYLOAD_TYPE_INT64: p.kind = PayloadKind::Int64; p.i = a->payload.llValue; break;
    case NVTX_PAYLOAD_TYPE_INT32: p.kind = PayloadKind::Int64; p.i = a->payload.iValue; break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
      p.kind = PayloadKind::UInt64;
      p.i = static_cast<std::int64_t>(a->payload.ullValue);
      break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
      p.kind = PayloadKind::UInt64;
      p.i = static_cast<std::int64_t>(a->payload.uiValue);
      break;
    case NVTX_PAYLOAD_TYPE_DOUBLE: p.kind = PayloadKind::Double; p.d = a->payload.dValue; break;
    case NVTX_PAYLOAD_TYPE_FLOAT: p.kind = PayloadKind::Double; p.d = a->payload.fValue; break;
    default: break;
  }
  return p;
}

std::uint32_t category_of(const nvtxEventAttributes_t* a) noexcept {
  return a == nullptr ? 0 : a->category;
}

// --- domain versions (the core of everything) ------------------------------------------------

void domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  if (ThreadState* ts = thread_state()) {
    add_mark(ts, handle_id(d), message_of(ts, a), category_of(a), payload_of(a));
  }
}
nvtxRangeId_t domain_range_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  ThreadState* ts = thread_state();
  if (ts == nullptr) return 0;
  return start_range(ts, handle_id(d), message_of(ts, a), category_of(a), payload_of(a));
}
void domain_range_end(nvtxDomainHandle_t, nvtxRangeId_t id) { end_range(id); }
int domain_range_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
  ThreadState* ts = thread_state();
  if (ts == nullptr) return -2;
  return push_range(ts, handle_id(d), message_of(ts, a), category_of(a), pack(payload_of(a)));
}
int domain_range_pop(nvtxDomainHandle_t d) {
  ThreadState* ts = thread_state();
  return ts == nullptr ? -2 : pop_range(ts, handle_id(d));
}
char g_dummy_resource;
nvtxResourceHandle_t domain_resource_create(nvtxDomainHandle_t, nvtxResourceAttributes_t*) {
  return reinterpret_cast<nvtxResourceHandle_t>(&g_dummy_resource);
}
void domain_resource_destroy(nvtxResourceHandle_t) {}
void domain_name_category_a(nvtxDomainHandle_t d, std::uint32_t cat, const char* name) {
  name_category(handle_id(d), cat, intern_ascii(name));
}
void domain_name_category_w(nvtxDomainHandle_t d, std::uint32_t cat, const wchar_t* name) {
  name_category(handle_id(d), cat, intern_wide(name));
}
nvtxStringHandle_t domain_register_string_a(nvtxDomainHandle_t, const char* s) {
  return id_handle<nvtxStringHandle_t>(intern_ascii(s));
}
nvtxStringHandle_t domain_register_string_w(nvtxDomainHandle_t, const wchar_t* s) {
  return id_handle<nvtxStringHandle_t>(intern_wide(s));
}
nvtxDomainHandle_t domain_create_a(const char* name) {
  return id_handle<nvtxDomainHandle_t>(intern_ascii(name));
}
nvtxDomainHandle_t domain_create_w(const wchar_t* name) {
  return id_handle<nvtxDomainHandle_t>(intern_wide(name));
}
void domain_destroy(nvtxDomainHandle_t) {}
void initialize(const void*) {}

// --- default-domain versions -------------------------------------------------------------------

void mark_ex(const nvtxEventAttributes_t* a) { domain_mark_ex(nullptr, a); }
void mark_a(const char* m) {
  if (ThreadState* ts = thread_state()) add_mark(ts, 0, intern_cached(ts, m), 0, Payload{});
}
void mark_w(const wchar_t* m) {
  if (ThreadState* ts = thread_state()) add_mark(ts, 0, intern_wide(m), 0, Payload{});
}
nvtxRangeId_t range_start_ex(const nvtxEventAttributes_t* a) {
  return domain_range_start_ex(nullptr, a);
}
nvtxRangeId_t range_start_a(const char* m) {
  ThreadState* ts = thread_state();
  return ts == nullptr ? 0 : start_range(ts, 0, intern_cached(ts, m), 0, Payload{});
}
nvtxRangeId_t range_start_w(const wchar_t* m) {
  ThreadState* ts = thread_state();
  return ts == nullptr ? 0 : start_range(ts, 0, intern_wide(m), 0, Payload{});
}
void range_end(nvtxRangeId_t id) { end_range(id); }
int range_push_ex(const nvtxEventAttributes_t* a) { return domain_range_push_ex(nullptr, a); }
int range_push_a(const char* m) {
  ThreadState* ts = thread_state();
  return ts == nullptr ? -2 : push_range(ts, 0, intern_cached(ts, m), 0, PackedPayload{});
}
int range_push_w(const wchar_t* m) {
  ThreadState* ts = thread_state();
  return ts == nullptr ? -2 : push_range(ts, 0, intern_wide(m), 0, PackedPayload{});
}
int range_pop() { return domain_range_pop(nullptr); }
void name_category_a(std::uint32_t cat, const char* name) {
  domain_name_category_a(nullptr, cat, name);
}
void name_category_w(std::uint32_t cat, const wchar_t* name) {
  domain_name_category_w(nullptr, cat, name);
}
void name_os_thread_a(std::uint32_t tid, const char* name) {
  name_os_thread(tid, intern_ascii(name));
}
void name_os_thread_w(std::uint32_t tid, const wchar_t* name) {
  name_os_thread(tid, intern_wide(name));
}

template <class Fn>
void set_slot(NvtxFunctionTable table, unsigned size, unsigned id, Fn fn) noexcept {
  if (id < size && table[id] != nullptr) *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool fill_core(const NvtxExportTableCallbacks* cb) noexcept {
  NvtxFunctionTable t = nullptr;
  unsigned n = 0;
  if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n) == 0 || t == nullptr) return false;
  set_slot(t, n, NVTX_CBID_CORE_MarkEx, &mark_ex);
  set_slot(t, n, NVTX_CBID_CORE_MarkA, &mark_a);
  set_slot(t, n, NVTX_CBID_CORE_MarkW, &mark_w);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartEx, &range_start_ex);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartA, &range_start_a);
  set_slot(t, n, NVTX_CBID_CORE_RangeStartW, &range_start_w);
  set_slot(t, n, NVTX_CBID_CORE_RangeEnd, &range_end);
  set_slot(t, n, NVTX_CBID_CORE_RangePushEx, &range_push_ex);
  set_slot(t, n, NVTX_CBID_CORE_RangePushA, &range_push_a);
  set_slot(t, n, NVTX_CBID_CORE_RangePushW, &range_push_w);
  set_slot(t, n, NVTX_CBID_CORE_RangePop, &range_pop);
  set_slot(t, n, NVTX_CBID_CORE_NameCategoryA, &name_category_a);
  set_slot(t, n, NVTX_CBID_CORE_NameCategoryW, &name_category_w);
  set_slot(t, n, NVTX_CBID_CORE_NameOsThreadA, &name_os_thread_a);
  set_slot(t, n, NVTX_CBID_CORE_NameOsThreadW, &name_os_thread_w);
  return true;
}

bool fill_core2(const NvtxExportTableCallbacks* cb) noexcept {
  NvtxFunctionTable t = nullptr;
  unsigned n = 0;
  if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) == 0 || t == nullptr) return false;
  set_slot(t, n, NVTX_CBID_CORE2_DomainMarkEx, &domain_mark_ex);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, &domain_range_start_ex);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRangeEnd, &domain_range_end);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRangePushEx, &domain_range_push_ex);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRangePop, &domain_range_pop);
  set_slot(t, n, NVTX_CBID_CORE2_DomainResourceCreate, &domain_resource_create);
  set_slot(t, n, NVTX_CBID_CORE2_DomainResourceDestroy, &domain_resource_destroy);
  set_slot(t, n, NVTX_CBID_CORE2_DomainNameCategoryA, &domain_name_category_a);
  set_slot(t, n, NVTX_CBID_CORE2_DomainNameCategoryW, &domain_name_category_w);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, &domain_register_string_a);
  set_slot(t, n, NVTX_CBID_CORE2_DomainRegisterStringW, &domain_register_string_w);
  set_slot(t, n, NVTX_CBID_CORE2_DomainCreateA, &domain_create_a);
  set_slot(t, n, NVTX_CBID_CORE2_DomainCreateW, &domain_create_w);
  set_slot(t, n, NVTX_CBID_CORE2_DomainDestroy, &domain_destroy);
  set_slot(t, n, NVTX_CBID_CORE2_Initialize, &initialize);
  return true;
}

std::atomic<bool> g_warned_disabled{false};

}  // namespace
}  // namespace amdahl::profiler::detail

// Called by each NVTX instance in the process (the application's, each library's) once.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  using namespace amdahl::profiler::detail;
  try {
    // A static host: the constructor said so and stays off; NVTX keeps its own no-ops.
    if (amdahl::profiler::collector_refused_static_host()) return 1;
    if (!amdahl::profiler::collector_enabled()) {
      // Leave the tables alone: NVTX turns every call into its own no-op, the cheapest path.
      if (!g_warned_disabled.exchange(true)) {
        log_message(LogLevel::Warn,
                    "AMDAHL_PART_DIR is not set to a writable directory; not recording");
      }
      return 1;
    }
    if (get_export_table == nullptr) return 0;
    const auto* cb =
        static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
    if (cb == nullptr || cb->struct_size < sizeof(NvtxExportTableCallbacks) ||
        cb->GetModuleFunctionTable == nullptr) {
      log_message(LogLevel::Warn, "NVTX export table unavailable; not recording");
      return 0;
    }
    const bool core = fill_core(cb);
    const bool core2 = fill_core2(cb);
    if (!core && !core2) return 0;
    return 1;
  } catch (...) {
    return 0;
  }
}
