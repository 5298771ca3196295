/* Compiled as C99 with -Wpedantic: the client's header must serve a C (or bindgen) caller. */
#include "d4r_kernel_client.h"

#include <string.h>

int client_c_smoke(const char* socket_path);

/* Creates a client for socket_path, prepares a tiny module and resolves one of its kernels.
 * Returns 0 when every step answers as the header promises for a path with no daemon. */
int client_c_smoke(const char* socket_path)
{
  static const char ptx[] = ".version 8.0\n.entry c_kernel(\n.param .u64 p)\n{\nret;\n}\n";
  d4rk_options options;
  d4rk_client* client = NULL;
  d4rk_module_info info;
  d4rk_kernel* kernel = NULL;
  int outcome;

  d4rk_options_init(&options);
  options.socket_path = socket_path;
  options.budget_ms = 50;
  if (d4rk_client_create(&options, &client) != D4RK_OK || client == NULL) {
    return 1;
  }
  memset(&info, 0, sizeof info);
  if (d4rk_prepare_module(client, ptx, sizeof ptx, &info) != D4RK_OK || info.entry_count != 1 ||
      strlen(info.sha256_hex) != 64) {
    d4rk_client_destroy(client);
    return 2;
  }
  outcome = d4rk_resolve(client, info.module_hash, "c_kernel", &kernel);
  if (outcome != D4RK_NOT_FOUND || kernel != NULL || d4rk_last_reason()[0] == '\0') {
    d4rk_kernel_free(kernel);
    d4rk_client_destroy(client);
    return 3;
  }
  d4rk_client_destroy(client);
  return 0;
}
