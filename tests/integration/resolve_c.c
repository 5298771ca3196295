/* A C program that resolves one kernel through libd4r_kernel_client.so: used by the integration
 * tests where a fresh process is needed (another uid), and proof that the header works from C.
 * usage: d4r-test-resolve SOCKET MODULE_HASH_HEX KERNEL [BUDGET_MS]
 * exit: the d4rk_resolve outcome (0 ready, 1 not found, 2 pending, 3 rejected), 64 on bad usage. */
#include "client/d4r_kernel_client.h"

#include <stdio.h>
#include <stdlib.h>

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
  int outcome = d4rk_resolve(client, strtoull(argv[2], NULL, 16), argv[3], &kernel);
  if (outcome == D4RK_READY) {
    printf("ready %s %zu\n", kernel->sha256_hex, kernel->code_size);
  } else {
    printf("outcome %d: %s\n", outcome, d4rk_last_reason());
  }
  d4rk_kernel_free(kernel);
  d4rk_client_destroy(client);
  return outcome;
}
