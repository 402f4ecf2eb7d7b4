/* libffi for FusionHost.
 *
 * libffi describes C types with global variables (ffi_type_uint32, ...). Swift 6
 * refuses to touch imported mutable globals from concurrent code, so these inline
 * functions hand out their addresses instead; libffi never writes to them. */
#ifndef FUSIONHOST_CFFI_SHIM_H
#define FUSIONHOST_CFFI_SHIM_H

#include <ffi.h>
#include <stddef.h>

static inline ffi_type *cffi_type_void(void) { return &ffi_type_void; }
static inline ffi_type *cffi_type_sint32(void) { return &ffi_type_sint32; }
static inline ffi_type *cffi_type_uint32(void) { return &ffi_type_uint32; }
static inline ffi_type *cffi_type_uint64(void) { return &ffi_type_uint64; }
static inline ffi_type *cffi_type_sint64(void) { return &ffi_type_sint64; }
static inline ffi_type *cffi_type_pointer(void) { return &ffi_type_pointer; }
/* size_t has no ffi_type of its own; pick the unsigned type of its width. */
static inline ffi_type *cffi_type_size(void) {
    return sizeof(size_t) == 8 ? &ffi_type_uint64 : &ffi_type_uint32;
}
static inline ffi_abi cffi_default_abi(void) { return FFI_DEFAULT_ABI; }
/* libffi widens integer results to this size: the result buffer must hold one. */
static inline size_t cffi_result_size(void) { return sizeof(ffi_arg); }

#endif
