/*
 * d4r_kernel_client.h: the C ABI of libd4r_kernel_client.so, the thin in-process client that a
 * ZLUDA override hook (Rust or C, inside the game process) calls to ask d4r-kerneld for a native
 * replacement of a PTX kernel.
 *
 * Conventions (STYLE.md, rule 9):
 * - Handles are opaque; every function returns an int, 0 meaning success (or READY).
 * - Every object the library hands out has a paired d4rk_*_free / d4rk_*_destroy.
 * - The library fails open: no daemon, a refused socket, a deadline, a malformed or unverifiable
 *   reply all come back as D4RK_NOT_FOUND within the client's budget ("compile the PTX as usual").
 *   A problem is logged once per client. Nothing aborts and no C++ exception crosses this ABI.
 * - Every function is thread-safe; one client may be used by any number of threads at once.
 */
#ifndef D4R_KERNEL_CLIENT_H
#define D4R_KERNEL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define D4RK_EXPORT __attribute__((visibility("default")))
#else
#define D4RK_EXPORT
#endif

#ifdef __cplusplus
#define D4RK_NOEXCEPT noexcept
extern "C" {
#else
#define D4RK_NOEXCEPT
#endif

/* Return codes. d4rk_resolve returns one of the four outcomes; other functions return D4RK_OK or
 * an error. Errors are negative so that they never read as an outcome. */
#define D4RK_OK 0
#define D4RK_READY 0     /* *out holds a kernel: launch it instead of the PTX one */
#define D4RK_NOT_FOUND 1 /* no replacement (or the daemon could not be asked): compile the PTX */
#define D4RK_PENDING 2   /* being built; the budget ran out. A later resolve may get it */
#define D4RK_REJECTED 3  /* a replacement exists but may not be served; see d4rk_last_reason() */
#define D4RK_ERROR_INVALID_ARGUMENT (-1) /* a NULL or malformed argument: nothing was done */
#define D4RK_ERROR_OUT_OF_MEMORY (-2)    /* memory ran out: nothing was done */
#define D4RK_ERROR_INTERNAL (-3)         /* an unexpected library failure: nothing was done */
#define D4RK_ERROR_TOO_LARGE (-4)        /* d4rk_store_compiled: over D4RK_MAX_COMPILED_BYTES */
/* d4rk_store_compiled: the object was not taken (the daemon absent, slow or refusing, the queue
 * full); d4rk_last_reason() says why. Nothing to do: the hook has its object anyway. */
#define D4RK_NOT_STORED 4

/* d4rk_options.mode */
/* FROM_ENVIRONMENT (and D4RK_SWITCH_FROM_ENVIRONMENT): the game's D4R_* variable, else the [Kernels]
 * key of $XDG_CONFIG_HOME/d4r-kerneld/config (else ~/.config/...), else d4r's default. A switch
 * reads 1/true/on/yes and 0/false/off/no in any case; any other value is logged and ignored. */
#define D4RK_MODE_FROM_ENVIRONMENT 0 /* D4R_PREFER_ACCURACY / PreferAccuracy; default fast */
#define D4RK_MODE_FAST 1
#define D4RK_MODE_ACCURACY 2

/* d4rk_options.fp8_native and .native_swin_encoders */
#define D4RK_SWITCH_FROM_ENVIRONMENT 0
#define D4RK_SWITCH_OFF 1
#define D4RK_SWITCH_ON 2

/* d4rk_options.flags */
#define D4RK_FLAG_NO_MEMO 1u /* ask the daemon every time (benchmarks, tools); a hook leaves it 0 */
/* The hook mirrors module variables: before each launch of a served kernel it copies every
 * d4rk_kernel.host_variables entry from the PTX module (cuModuleGetGlobal, by that name) into the
 * code object's variable of the same name (hipModuleGetGlobal), size bytes, so that what the
 * game wrote with cuMemcpyHtoD / cudaMemcpyToSymbol is what the kernel reads. Without this flag
 * a kernel whose object has such variables is D4RK_NOT_FOUND (reason "host_variables: ..."). */
#define D4RK_FLAG_MIRRORS_HOST_VARIABLES 2u
/* The hook's cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col / cuTensorMapReplaceAddress write
 * d4r's 128-byte tensor map layout (compiler/translate/tensor_map_layout.hpp, magic "DTM1"), not
 * NVIDIA's opaque one, wherever the game passes the map. A served kernel that uses
 * cp.async.bulk.tensor, cp.reduce.async.bulk.tensor or tensormap.replace reads that layout and
 * traps on any other; without this flag such a kernel is D4RK_NOT_FOUND (reason
 * "tensor_maps: ..."). */
#define D4RK_FLAG_WRITES_D4R_TENSOR_MAPS 4u

#define D4RK_DEFAULT_BUDGET_MS 50
#define D4RK_MAX_BUDGET_MS 10000 /* larger budgets are clamped to this */
#define D4RK_MAX_POSTS 8
/* The largest compiled module d4rk_store_compiled takes (the daemon refuses larger ones too). */
#define D4RK_MAX_COMPILED_BYTES ((size_t)64 << 20)
/* d4rk_store_compiled flags */
#define D4RK_STORE_WAIT 1u /* send now and wait (within the budget) for the daemon to store it */

typedef struct d4rk_client d4rk_client;

/* Receives each log line (without a trailing newline). Called at most a few times per client, from
 * whichever thread hit the problem. */
typedef void (*d4rk_log_fn)(void* user_data, const char* message);

/* All zero (with struct_size set) means every default. Fields past struct_size are read as zero,
 * so a caller built against an older, shorter struct keeps working. */
typedef struct d4rk_options {
  uint32_t struct_size;    /* sizeof(d4rk_options) as the caller was compiled; 0 is refused */
  uint32_t budget_ms;      /* per call; 0: D4RK_DEFAULT_BUDGET_MS; clamped to D4RK_MAX_BUDGET_MS */
  const char* socket_path; /* NULL or "": $XDG_RUNTIME_DIR/d4r-kerneld/socket, else
                              /run/user/<uid>/d4r-kerneld/socket */
  const char* target;      /* NULL: D4R_GPU_ARCH if it starts with "gfx", else the daemon's GPU;
                              "": the daemon's GPU */
  int32_t mode;            /* D4RK_MODE_* */
  int32_t fp8_native;      /* D4RK_SWITCH_*; from the environment: D4R_ZLUDA_WMMA_FP8_NATIVE
                              (NativeFp8), default on */
  int32_t native_swin_encoders; /* D4RK_SWITCH_*; from the environment: D4R_NATIVE_SWIN_ENCODERS
                                   (NativeSwinEncoders), default on */
  d4rk_log_fn log_fn;      /* NULL: lines go to stderr, prefixed "d4r-kernel-client: " */
  void* log_user_data;
  uint32_t flags;          /* D4RK_FLAG_*; 0 for a hook */
} d4rk_options;

typedef struct d4rk_module_info {
  uint64_t module_hash; /* FNV-1a 64 of the PTX text, as d4r manifests list it */
  char sha256_hex[65];  /* SHA-256 of the PTX text, lowercase hex, NUL-terminated */
  uint32_t entry_count; /* the .entry names the module defines */
} d4rk_module_info;

/* What a code object's amdhsa.kernels note says about one kernel. */
typedef struct d4rk_resources {
  const char* name; /* "" when absent */
  uint32_t kernarg_size;
  uint32_t kernarg_align;
  uint32_t wave_size;
  uint32_t sgpr_count;
  uint32_t vgpr_count;
  uint32_t lds_bytes;     /* group segment fixed size */
  uint32_t scratch_bytes; /* private segment fixed size */
  uint32_t max_workgroup_size;
} d4rk_resources;

/* One NAME_postK kernel; 0 means the contract's default (grid: the main launch's; block 32/1/1). */
/* A module variable of the code object that the host writes (only with
 * D4RK_FLAG_MIRRORS_HOST_VARIABLES). */
typedef struct d4rk_host_variable {
  const char* name; /* the PTX name, also the code object's symbol */
  uint64_t size;    /* bytes */
} d4rk_host_variable;

typedef struct d4rk_post_kernel {
  const char* name;
  uint32_t grid_x;
  uint32_t grid_y;
  uint32_t block_x;
  uint32_t block_y;
  uint32_t block_z;
} d4rk_post_kernel;

/* A READY answer. Every pointer stays valid until d4rk_kernel_free(this); the code bytes are
 * read-only (often a mapping of the daemon's cache file). */
typedef struct d4rk_kernel {
  const void* code; /* the AMDGPU code object (ELF) */
  size_t code_size;
  char sha256_hex[65];       /* verified digest of the code bytes, lowercase hex */
  const char* kernel_name;   /* the name that was resolved */
  const char* target;        /* the folder the answer is for, "gfx1201-fp8" */
  const char* amdhsa_target; /* "amdgcn-amd-amdhsa--gfx1201" */
  int32_t mode;              /* D4RK_MODE_FAST or D4RK_MODE_ACCURACY */
  d4rk_resources main;
  int32_t has_prep; /* 1: launch `prep` first with grid (prep_blocks,1,1), block (128,1,1) */
  d4rk_resources prep;
  uint32_t prep_blocks;
  uint32_t prep_key_offset;
  uint32_t prep_key_at;
  uint32_t prep_key_slots;
  uint32_t prep_identity_at;
  uint32_t block_z; /* != 0 replaces blockDim.z */
  uint32_t grid_x;  /* != 0 sets the grid to (grid_x,1,1) */
  uint32_t post_count;
  d4rk_post_kernel posts[D4RK_MAX_POSTS];
  /* Added after posts, so that a hook built against the shorter struct reads it unchanged: the
   * library allocates every d4rk_kernel. Every module variable of the object (its whole module's,
   * not only this kernel's); 0 and NULL when it has none. */
  uint32_t host_variable_count;
  const d4rk_host_variable* host_variables;
} d4rk_kernel;

/* What makes a module compiled by the hook's own compiler (ZLUDA compiling the PTX itself, when
 * no replacement serves a kernel) valid: a lookup finds only what a store made with an equal key.
 * client/zluda_compiles.md says where a hook calls d4rk_lookup_compiled and d4rk_store_compiled.
 * Strings are NUL-terminated printable ASCII, kept by the library only for the call. Fields past
 * struct_size are read as zero, as for d4rk_options. */
typedef struct d4rk_compiled_key {
  uint32_t struct_size;          /* sizeof(d4rk_compiled_key) as the caller was compiled; 0 refused */
  const char* module_sha256_hex; /* d4rk_module_info.sha256_hex of the PTX module compiled: 64 hex */
  /* The compiler's own build identity, opaque, 1..1024 bytes: whatever tells one build's output
   * from another's (ZLUDA's version and commit, the comgr/LLVM it links). Another identity never
   * finds this one's objects; old ones age out of the cache. */
  const char* compiler_identity;
  const char* target;            /* the gfx name compiled for, as the compiler got it: "gfx1100" */
  /* Every option the hook says changes the output ("fast_math=1", "wave64"), each 1..4096 bytes,
   * at most 256: a set (order and repeats do not matter), so pass an order-sensitive command line
   * as one string. NULL with option_count 0: none. */
  const char* const* options;
  uint32_t option_count;
  int32_t mode;                  /* D4RK_MODE_*; FROM_ENVIRONMENT: the client's mode */
} d4rk_compiled_key;

/* A compiled module found by d4rk_lookup_compiled; valid until d4rk_compiled_free(this). */
typedef struct d4rk_compiled {
  const void* code;    /* the bytes the store was given, verified against sha256_hex */
  size_t code_size;
  char sha256_hex[65]; /* of the code bytes, lowercase hex */
  int32_t mode;        /* D4RK_MODE_FAST or D4RK_MODE_ACCURACY */
} d4rk_compiled;

/* Fills *options with struct_size = sizeof(d4rk_options) and every default. */
D4RK_EXPORT void d4rk_options_init(d4rk_options* options) D4RK_NOEXCEPT;

/* options may be NULL (every default). Never fails because the daemon is absent: the connection
 * is made lazily and retried with a short backoff, so a daemon started later is found. Returns
 * D4RK_OK, D4RK_ERROR_INVALID_ARGUMENT (out NULL, struct_size 0), D4RK_ERROR_OUT_OF_MEMORY or
 * D4RK_ERROR_INTERNAL; *out is NULL on every error. */
D4RK_EXPORT int d4rk_client_create(const d4rk_options* options, d4rk_client** out) D4RK_NOEXCEPT;

/* Waits for no daemon; kernels already handed out stay valid until their own free.
 * NULL is a no-op. */
D4RK_EXPORT void d4rk_client_destroy(d4rk_client* client) D4RK_NOEXCEPT;

/* Tells the daemon that the game loaded a PTX module (the image given to cuModuleLoadData: PTX text
 * up to its first NUL, at most 64 MiB; a fatbin's PTX entries are passed one by one, after LZ4), so
 * that work can start early; uploads the text when the daemon asks for it, within the budget.
 * Returns D4RK_OK whenever the module identity was computed, whatever the daemon did (preparing is
 * advisory), and fills *out_optional if not NULL: pass out_optional->module_hash to d4rk_resolve.
 * D4RK_ERROR_INVALID_ARGUMENT: client or image NULL, or size 0; D4RK_ERROR_OUT_OF_MEMORY: the
 * identity could not be computed. On an error out_optional is untouched and the hook skips the
 * module (nothing to resolve). */
D4RK_EXPORT int d4rk_prepare_module(d4rk_client* client, const void* image, size_t size,
                                    d4rk_module_info* out_optional) D4RK_NOEXCEPT;

/* Asks for the replacement of kernel_name in the module whose FNV-1a 64 is module_hash. Returns
 * D4RK_READY with *out set (free it with d4rk_kernel_free), or D4RK_NOT_FOUND / D4RK_PENDING /
 * D4RK_REJECTED with *out = NULL, or D4RK_ERROR_INVALID_ARGUMENT when an argument is NULL. Returns
 * within the budget. A READY answer is remembered: asking again costs no round trip. */
D4RK_EXPORT int d4rk_resolve(d4rk_client* client, uint64_t module_hash, const char* kernel_name,
                             d4rk_kernel** out) D4RK_NOEXCEPT;

/* NULL is a no-op. Each kernel is freed on its own, in any order, before or after the client. */
D4RK_EXPORT void d4rk_kernel_free(d4rk_kernel* kernel) D4RK_NOEXCEPT;

/* The hook's own compiled module for `key`, stored by any process of this user (any game). Call it
 * before compiling a PTX module yourself. Returns D4RK_READY with *out set (free it with
 * d4rk_compiled_free), D4RK_NOT_FOUND with *out = NULL on a miss and on any trouble (no daemon, a
 * deadline, a damaged object: the bytes are verified against their SHA-256 and a damaged object
 * is reported to the daemon, which quarantines it), or D4RK_ERROR_INVALID_ARGUMENT when an
 * argument or the key is malformed (d4rk_last_reason() says which). The daemon is asked within
 * the budget, as by d4rk_resolve (after a timeout, not for a second); the object is then read
 * within the budget plus 10 ms per MiB. */
D4RK_EXPORT int d4rk_lookup_compiled(d4rk_client* client, const d4rk_compiled_key* key,
                                     d4rk_compiled** out) D4RK_NOEXCEPT;

/* Offers the daemon the module the hook's compiler just made for `key` (size bytes at object,
 * copied: the caller keeps its buffer). Best effort. Without D4RK_STORE_WAIT it returns at once:
 * D4RK_OK means queued, and a thread of the client's own sends it (one at a time, at most 30 s
 * each; at most 128 MiB waiting: past that D4RK_NOT_STORED); d4rk_client_destroy drops what is
 * still queued. With D4RK_STORE_WAIT it sends on the calling thread within the budget: D4RK_OK
 * means stored. D4RK_ERROR_TOO_LARGE past D4RK_MAX_COMPILED_BYTES, D4RK_ERROR_INVALID_ARGUMENT for
 * a NULL argument, size 0 or a malformed key, D4RK_ERROR_OUT_OF_MEMORY when the copy failed. */
D4RK_EXPORT int d4rk_store_compiled(d4rk_client* client, const d4rk_compiled_key* key,
                                    const void* object, size_t size,
                                    uint32_t flags) D4RK_NOEXCEPT;

/* NULL is a no-op. Independent of the client, as kernels are. */
D4RK_EXPORT void d4rk_compiled_free(d4rk_compiled* compiled) D4RK_NOEXCEPT;

/* Why the calling thread's last d4rk_resolve did not return READY, its last d4rk_lookup_compiled
 * did not return READY or its last d4rk_store_compiled did not return D4RK_OK ("" after success
 * or before any call). Owned by the library, per thread: valid until this thread's next call of
 * one of the three. */
D4RK_EXPORT const char* d4rk_last_reason(void) D4RK_NOEXCEPT;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* D4R_KERNEL_CLIENT_H */
