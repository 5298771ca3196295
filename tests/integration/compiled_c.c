/* A C program that does what a ZLUDA patch does around its own module compile, through
 * libd4r_kernel_client.so (client/zluda_compiles.md): it prepares a PTX module (for its SHA-256),
 * then looks up or stores the module "ZLUDA compiled" (here: the bytes of OBJECT_FILE). The
 * integration tests run it as separate processes: one stores, another looks up.
 *
 * usage: d4r-test-compiled SOCKET BUDGET_MS COMMAND PTX_FILE OBJECT_FILE IDENTITY TARGET MODE
 *                          [OPTION...]
 *   COMMAND: lookup      d4rk_lookup_compiled; found bytes must equal OBJECT_FILE's
 *            store       d4rk_store_compiled without D4RK_STORE_WAIT (as a hook does), then looks
 *                        up until the daemon has it (at most 10 s), so that the process may exit
 *            store-wait  d4rk_store_compiled with D4RK_STORE_WAIT
 *   MODE: fast, accuracy or env (the client's mode from D4R_PREFER_ACCURACY)
 * Prints one line: the outcome, the call's time ("elapsed_us N") and d4rk_last_reason().
 * exit: 0 found and equal / stored, 1 not found, 4 not stored, 5 found with other bytes,
 *       6 queued but never seen, 100 + n for an error -n, 64 bad usage, 65 no client, 66 no file. */
#define _POSIX_C_SOURCE 200809L

#include "client/d4r_kernel_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char* read_whole(const char* path, size_t* size)
{
  FILE* file = fopen(path, "rb");
  if (file == NULL) {
    return NULL;
  }
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  char* bytes = malloc((size_t)length + 1);
  if (bytes == NULL || fread(bytes, 1, (size_t)length, file) != (size_t)length) {
    free(bytes);
    fclose(file);
    return NULL;
  }
  fclose(file);
  bytes[length] = '\0';
  *size = (size_t)length;
  return bytes;
}

static long long now_us(void)
{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (long long)now.tv_sec * 1000000LL + now.tv_nsec / 1000;
}

static int exit_code_of(int result)
{
  return result < 0 ? 100 - result : result;
}

/* Looks up until found or `limit_us` passed; the last outcome. */
static int lookup_until_found(d4rk_client* client, const d4rk_compiled_key* key, long long limit_us)
{
  const long long give_up = now_us() + limit_us;
  for (;;) {
    d4rk_compiled* found = NULL;
    int outcome = d4rk_lookup_compiled(client, key, &found);
    d4rk_compiled_free(found);
    if (outcome != D4RK_NOT_FOUND || now_us() >= give_up) {
      return outcome;
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
}

static int lookup(d4rk_client* client, const d4rk_compiled_key* key, const char* object,
                  size_t object_size)
{
  d4rk_compiled* found = NULL;
  long long start = now_us();
  int outcome = d4rk_lookup_compiled(client, key, &found);
  long long elapsed = now_us() - start;
  if (outcome != D4RK_READY) {
    printf("lookup outcome %d elapsed_us %lld: %s\n", outcome, elapsed, d4rk_last_reason());
    return exit_code_of(outcome);
  }
  int same = found->code_size == object_size && memcmp(found->code, object, object_size) == 0;
  printf("lookup found %zu bytes sha256 %s mode %d elapsed_us %lld%s\n", found->code_size,
         found->sha256_hex, found->mode, elapsed, same ? "" : " (other bytes)");
  d4rk_compiled_free(found);
  return same ? 0 : 5;
}

static int store(d4rk_client* client, const d4rk_compiled_key* key, const char* object,
                 size_t object_size, int wait)
{
  long long start = now_us();
  int outcome = d4rk_store_compiled(client, key, object, object_size, wait ? D4RK_STORE_WAIT : 0);
  long long elapsed = now_us() - start;
  printf("store outcome %d elapsed_us %lld: %s\n", outcome, elapsed, d4rk_last_reason());
  if (outcome != D4RK_OK || wait) {
    return exit_code_of(outcome);
  }
  outcome = lookup_until_found(client, key, 10 * 1000000LL);
  printf("queued store seen: %s\n", outcome == D4RK_READY ? "yes" : "no");
  return outcome == D4RK_READY ? 0 : 6;
}

int main(int argc, char** argv)
{
  if (argc < 9) {
    fprintf(stderr, "usage: %s SOCKET BUDGET_MS lookup|store|store-wait PTX OBJECT IDENTITY TARGET "
                    "fast|accuracy|env [OPTION...]\n", argv[0]);
    return 64;
  }
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = argv[1];
  options.budget_ms = (uint32_t)strtoul(argv[2], NULL, 10);
  d4rk_client* client = NULL;
  if (d4rk_client_create(&options, &client) != D4RK_OK) {
    return 65;
  }
  size_t ptx_size = 0;
  size_t object_size = 0;
  char* ptx = read_whole(argv[4], &ptx_size);
  char* object = read_whole(argv[5], &object_size);
  d4rk_module_info module;
  memset(&module, 0, sizeof(module));
  if (ptx == NULL || object == NULL ||
      d4rk_prepare_module(client, ptx, ptx_size + 1, &module) != D4RK_OK) {
    d4rk_client_destroy(client);
    return 66;
  }
  d4rk_compiled_key key;
  memset(&key, 0, sizeof(key));
  key.struct_size = sizeof(key);
  key.module_sha256_hex = module.sha256_hex;
  key.compiler_identity = argv[6];
  key.target = argv[7];
  key.mode = strcmp(argv[8], "fast") == 0       ? D4RK_MODE_FAST
             : strcmp(argv[8], "accuracy") == 0 ? D4RK_MODE_ACCURACY
                                                : D4RK_MODE_FROM_ENVIRONMENT;
  key.options = (const char* const*)(argv + 9);
  key.option_count = (uint32_t)(argc - 9);
  int status = 64;
  if (strcmp(argv[3], "lookup") == 0) {
    status = lookup(client, &key, object, object_size);
  } else if (strcmp(argv[3], "store") == 0 || strcmp(argv[3], "store-wait") == 0) {
    status = store(client, &key, object, object_size, strcmp(argv[3], "store-wait") == 0);
  }
  d4rk_client_destroy(client);
  free(ptx);
  free(object);
  return status;
}
