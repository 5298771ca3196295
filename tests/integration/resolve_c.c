/* A C program that does what ZLUDA's override hook does, through libd4r_kernel_client.so: it
 * prepares a PTX module (or takes a module hash) and resolves one kernel. Used by the integration
 * tests where a fresh process is needed (another uid), by scripts/demo.sh, and proof that the
 * header works from C.
 * usage: d4r-test-resolve SOCKET MODULE_HASH_HEX|PTX_FILE KERNEL [BUDGET_MS]
 * exit: the d4rk_resolve outcome (0 ready, 1 not found, 2 pending, 3 rejected), 64 on bad usage. */
#include "client/d4r_kernel_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The module hash: a PTX file is prepared as the hook prepares a loaded module; anything else is
 * read as 16 hex digits. */
static uint64_t module_hash_of(d4rk_client* client, const char* arg)
{
  FILE* file = fopen(arg, "rb");
  if (file == NULL) {
    return strtoull(arg, NULL, 16);
  }
  static char image[1 << 20];
  size_t size = fread(image, 1, sizeof(image) - 1, file);
  fclose(file);
  image[size] = '\0';
  d4rk_module_info info;
  memset(&info, 0, sizeof(info));
  if (d4rk_prepare_module(client, image, size + 1, &info) != D4RK_OK) {
    return 0;
  }
  printf("prepared %s: module hash %016llx, %u entries\n", arg,
         (unsigned long long)info.module_hash, info.entry_count);
  return info.module_hash;
}

int main(int argc, char** argv)
{
  if (argc < 4) {
    fprintf(stderr, "usage: %s SOCKET MODULE_HASH_HEX KERNEL [BUDGET_MS]\n", argv[0]);
    return 64;
  }
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = argv[1];
  options.target = "gfx1101";
  options.budget_ms = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 1000;
  d4rk_client* client = NULL;
  if (d4rk_client_create(&options, &client) != D4RK_OK) {
    return 65;
  }
  d4rk_kernel* kernel = NULL;
  int outcome = d4rk_resolve(client, module_hash_of(client, argv[2]), argv[3], &kernel);
  if (outcome == D4RK_READY) {
    printf("ready %s: %zu bytes, sha256 %s, target %s, prep blocks %u, %u post kernels\n",
           kernel->kernel_name, kernel->code_size, kernel->sha256_hex, kernel->target,
           kernel->prep_blocks, kernel->post_count);
  } else {
    printf("outcome %d: %s\n", outcome, d4rk_last_reason());
  }
  d4rk_kernel_free(kernel);
  d4rk_client_destroy(client);
  return outcome;
}
