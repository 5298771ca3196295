#pragma once
// Every D4R_* environment variable a program of d4r-kerneld reads, in one table: its name, what it
// means, its default and who reads it. The client, the daemon and the CLI take their names from
// here; `d4r-kernel config` and `doctor` list and check them from here; README's table says the
// same. d4r's own bridge reads more D4R_* variables that we do not (k_d4r_bridge_variables): they
// are listed so that a check for misspelt names knows them.

#include <span>
#include <string_view>

namespace d4r {

inline constexpr std::string_view k_env_prefer_accuracy = "D4R_PREFER_ACCURACY";
inline constexpr std::string_view k_env_native_fp8 = "D4R_ZLUDA_WMMA_FP8_NATIVE";
inline constexpr std::string_view k_env_native_swin_encoders = "D4R_NATIVE_SWIN_ENCODERS";
inline constexpr std::string_view k_env_gpu_arch = "D4R_GPU_ARCH";
inline constexpr std::string_view k_env_native_dir = "D4R_ZLUDA_NATIVE_DIR";
inline constexpr std::string_view k_env_kerneld_socket = "D4R_KERNELD_SOCKET";
inline constexpr std::string_view k_env_worker_test_faults = "D4R_WORKER_TEST_FAULTS";

struct VariableInfo {
  std::string_view name;
  std::string_view meaning;
  std::string_view default_text;
  std::string_view read_by;
  std::string_view config_key; // its d4r.ini [Kernels] key in the config file; "" when none
};

inline constexpr VariableInfo k_variables[] = {
    {k_env_prefer_accuracy, "serve the accuracy set (switch)", "off: the fast set",
     "client, daemon, d4r-kernel config", "PreferAccuracy"},
    {k_env_native_fp8, "use the <gfx12>-fp8 folders on gfx12 (switch)", "on",
     "client, daemon, d4r-kernel config", "NativeFp8"},
    {k_env_native_swin_encoders, "serve rrlite_enc1_4x4 and rrlite_enc2_4x4 (switch)", "on",
     "client, daemon, d4r-kernel config", "NativeSwinEncoders"},
    {k_env_gpu_arch, "the GPU target, read only when it starts with gfx",
     "the KFD GPU with the most SIMDs", "client, daemon", ""},
    {k_env_native_dir, "the d4r release directory to serve", "none: nothing is served", "daemon",
     ""},
    {k_env_kerneld_socket, "the socket d4r-kernel talks to (games and the daemon use the rule)",
     "the socket rule", "d4r-kernel", ""},
    {k_env_worker_test_faults, "tests only: faults d4r-kernel-worker injects", "none",
     "d4r-kernel-worker", ""},
};

// Read by d4r itself (its CUDA bridge and ZLUDA build; ../shared/reference/d4r-contract.md), not
// by d4r-kerneld.
inline constexpr std::string_view k_d4r_bridge_variables[] = {
    "D4R_HIP_DEVICE",          "D4R_ZLUDA_IGNORE_DENORMAL", "D4R_ELIDE_NGX_SYNC",
    "D4R_SUST_KINDS",          "D4R_TEX_SRC",               "D4R_ZLUDA_EXTRA_BC",
    "D4R_TEX_ACCURACY_WAVE64", "D4R_CUDA_REPLAY_DUMP_DIR",  "D4R_CUDA_LAUNCH_STATS",
    "D4R_CUDA_KERNEL_PROFILE", "D4R_ZLUDA_CACHE_HOME",      "D4R_CUDA_CAPTURE",
    "D4R_CUDA_CAPTURE_DIR",
};

// Ours: the table's entry; nullptr for any other name (case matters, as for getenv).
[[nodiscard]] const VariableInfo* find_variable(std::string_view name);
// Ours or d4r's bridge's.
[[nodiscard]] bool is_known_variable(std::string_view name);

} // namespace d4r
