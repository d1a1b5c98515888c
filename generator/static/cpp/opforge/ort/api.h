// opforge ONNX Runtime base, the C API it calls: the OrtApi the runtime hands RegisterCustomOps
// (the library links no libonnxruntime), statuses, and the version floor. Included first by the
// other ORT base headers; ORT_API_MANUAL_INIT before the ORT header, as every unit must see it.
#pragma once

#ifndef ORT_API_MANUAL_INIT
#define ORT_API_MANUAL_INIT
#endif
#include <onnxruntime_cxx_api.h>

#include <string>

#if defined(_WIN32)
#define OPFORGE_ORT_EXPORT __declspec(dllexport)
#else
#define OPFORGE_ORT_EXPORT __attribute__((visibility("default")))
#endif

#if ORT_API_VERSION < 17
#error "opforge ONNX Runtime ops need ONNX Runtime 1.17+ headers (ORT_API_VERSION >= 17)"
#endif

namespace opforge {
namespace ort {

/** The API the runtime handed to RegisterCustomOps. */
inline const OrtApi*& apiSlot() {
  static const OrtApi* api = nullptr;
  return api;
}
inline const OrtApi& api() { return *apiSlot(); }

inline OrtStatus* error(OrtErrorCode code, const std::string& message) { return api().CreateStatus(code, message.c_str()); }

/** Releases a status we only probed with; returns whether it was ok. */
inline bool okAndRelease(OrtStatus* s) {
  if (s == nullptr) return true;
  api().ReleaseStatus(s);
  return false;
}

/** Collects the first failed ORT call. */
struct Check {
  OrtStatus* status = nullptr;
  bool operator()(OrtStatus* s) {
    if (s == nullptr) return true;
    if (status == nullptr) status = s; else api().ReleaseStatus(s);
    return false;
  }
};

}  // namespace ort
}  // namespace opforge
