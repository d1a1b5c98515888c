// What the opforge JAX library was built against, readable before any handler is registered:
// opforge_jax (Python) compares it with the jaxlib it runs under and refuses a mismatch with a
// message naming both versions, instead of XLA's "No FFI handler registered" or a crash later.
#include "xla/ffi/api/c_api.h"

#ifndef OPFORGE_JAX_JAXLIB_VERSION
#error "OPFORGE_JAX_JAXLIB_VERSION (the jaxlib version whose FFI headers this builds against) must be defined: out/cmake/opforge_jax.cmake sets it"
#endif

extern "C" {

/** The jaxlib version whose FFI headers (jax.ffi.include_dir()) the handlers were compiled with. */
__attribute__((visibility("default"))) const char* opforge_jax_jaxlib_version() { return OPFORGE_JAX_JAXLIB_VERSION; }

/** XLA_FFI_API_MAJOR of those headers. */
__attribute__((visibility("default"))) int opforge_jax_ffi_api_major() { return XLA_FFI_API_MAJOR; }

/** XLA_FFI_API_MINOR of those headers. */
__attribute__((visibility("default"))) int opforge_jax_ffi_api_minor() { return XLA_FFI_API_MINOR; }

/** Whether the handlers of this build include the CUDA ones (OPFORGE_JAX_WITH_CUDA). */
__attribute__((visibility("default"))) int opforge_jax_has_cuda() {
#ifdef OPFORGE_JAX_WITH_CUDA
  return 1;
#else
  return 0;
#endif
}

}  // extern "C"
