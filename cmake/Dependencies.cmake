# Every dependency comes from Debian bookworm's packages (scripts/install-deps.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)

find_package(Protobuf REQUIRED)
pkg_check_modules(GRPCPP REQUIRED IMPORTED_TARGET grpc++)
# The Abseil that gRPC is built on (daemon/main.cpp sets its mutex deadlock detection).
pkg_check_modules(ABSL_SYNCHRONIZATION REQUIRED IMPORTED_TARGET absl_synchronization)
find_program(GRPC_CPP_PLUGIN grpc_cpp_plugin REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(spdlog REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(SYSTEMD REQUIRED IMPORTED_TARGET libsystemd)
pkg_check_modules(HIREDIS REQUIRED IMPORTED_TARGET hiredis) # cache/remote/redis

# LLVM 19, linked as the shared libLLVM-19.so.
set(D4R_LLVM_ROOT /usr/lib/llvm-19)
find_package(LLVM REQUIRED CONFIG PATHS ${D4R_LLVM_ROOT}/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "LLVM 19 is required, found ${LLVM_PACKAGE_VERSION}")
endif()
add_library(d4r_llvm INTERFACE)
target_include_directories(d4r_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(d4r_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_directories(d4r_llvm INTERFACE ${LLVM_LIBRARY_DIRS})
target_link_libraries(d4r_llvm INTERFACE LLVM-19)

set(D4R_CLANG ${D4R_LLVM_ROOT}/bin/clang++ CACHE FILEPATH "clang used to build the HIP test kernels")
set(D4R_LLVM_OBJDUMP ${D4R_LLVM_ROOT}/bin/llvm-objdump CACHE FILEPATH "llvm-objdump for disassembly checks")
