// Loads a SQLite-compatible library (SQLCipher) without letting its symbols meet any other
// SQLite in the process. See CSQLite.h for why.
#define _GNU_SOURCE
#include "CSQLite.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void *open_library(const char *path, int isolated) {
#if defined(__linux__)
    if (isolated) {
        // RTLD_DEEPBIND: the library resolves its own references (SQLCipher's calls to its
        // own sqlite3_* functions) against itself and its dependencies before the global
        // scope, where the system libsqlite3 may already sit. RTLD_LOCAL keeps its symbols
        // out of the global scope in turn. dlmopen(LM_ID_NEWLM) isolates further, but it
        // loads a second libc into the process, and OpenSSL's locks in that copy crash under
        // the multi-threaded test runner; DEEPBIND shares the one libc.
        return dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    }
#else
    (void)isolated;
#endif
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

#define SHARK_REQUIRED(field, symbol)                                                          \
    do {                                                                                       \
        api->field = (__typeof__(api->field))dlsym(handle, symbol);                            \
        if (!api->field) {                                                                     \
            snprintf(error, error_capacity, "%s has no symbol %s", path, symbol);              \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

#define SHARK_OPTIONAL(field, symbol)                                                          \
    api->field = (__typeof__(api->field))dlsym(handle, symbol)

int shark_sqlite3_api_load(const char *path, int isolated, shark_sqlite3_api *api, char *error,
                           size_t error_capacity) {
    memset(api, 0, sizeof(*api));
    void *handle = open_library(path, isolated);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(error, error_capacity, "cannot load %s: %s", path, reason ? reason : "unknown error");
        return 1;
    }
    SHARK_REQUIRED(libversion_number, "sqlite3_libversion_number");
    SHARK_REQUIRED(libversion, "sqlite3_libversion");
    SHARK_REQUIRED(threadsafe, "sqlite3_threadsafe");
    SHARK_REQUIRED(open_v2, "sqlite3_open_v2");
    SHARK_REQUIRED(close_v2, "sqlite3_close_v2");
    SHARK_REQUIRED(errmsg, "sqlite3_errmsg");
    SHARK_REQUIRED(extended_errcode, "sqlite3_extended_errcode");
    SHARK_REQUIRED(errstr, "sqlite3_errstr");
    SHARK_REQUIRED(extended_result_codes, "sqlite3_extended_result_codes");
    SHARK_REQUIRED(exec, "sqlite3_exec");
    SHARK_REQUIRED(prepare_v2, "sqlite3_prepare_v2");
    SHARK_OPTIONAL(prepare_v3, "sqlite3_prepare_v3");
    SHARK_REQUIRED(finalize, "sqlite3_finalize");
    SHARK_REQUIRED(reset, "sqlite3_reset");
    SHARK_REQUIRED(clear_bindings, "sqlite3_clear_bindings");
    SHARK_REQUIRED(step, "sqlite3_step");
    SHARK_REQUIRED(bind_parameter_count, "sqlite3_bind_parameter_count");
    SHARK_REQUIRED(bind_null, "sqlite3_bind_null");
    SHARK_REQUIRED(bind_int64, "sqlite3_bind_int64");
    SHARK_REQUIRED(bind_double, "sqlite3_bind_double");
    SHARK_REQUIRED(bind_text, "sqlite3_bind_text");
    SHARK_REQUIRED(bind_blob, "sqlite3_bind_blob");
    SHARK_REQUIRED(column_count, "sqlite3_column_count");
    SHARK_REQUIRED(stmt_readonly, "sqlite3_stmt_readonly");
    SHARK_REQUIRED(column_name, "sqlite3_column_name");
    SHARK_REQUIRED(column_type, "sqlite3_column_type");
    SHARK_REQUIRED(column_int64, "sqlite3_column_int64");
    SHARK_REQUIRED(column_double, "sqlite3_column_double");
    SHARK_REQUIRED(column_text, "sqlite3_column_text");
    SHARK_REQUIRED(column_blob, "sqlite3_column_blob");
    SHARK_REQUIRED(column_bytes, "sqlite3_column_bytes");
    SHARK_REQUIRED(changes, "sqlite3_changes");
    SHARK_REQUIRED(last_insert_rowid, "sqlite3_last_insert_rowid");
    SHARK_REQUIRED(busy_timeout, "sqlite3_busy_timeout");
    SHARK_REQUIRED(sql, "sqlite3_sql");
    SHARK_REQUIRED(get_autocommit, "sqlite3_get_autocommit");
    SHARK_REQUIRED(free, "sqlite3_free");
    SHARK_REQUIRED(interrupt, "sqlite3_interrupt");
    SHARK_REQUIRED(db_config, "sqlite3_db_config");
    SHARK_REQUIRED(limit, "sqlite3_limit");
    SHARK_REQUIRED(set_authorizer, "sqlite3_set_authorizer");
    SHARK_REQUIRED(create_function_v2, "sqlite3_create_function_v2");
    SHARK_REQUIRED(user_data, "sqlite3_user_data");
    SHARK_REQUIRED(value_int64, "sqlite3_value_int64");
    SHARK_REQUIRED(result_null, "sqlite3_result_null");
    SHARK_REQUIRED(result_int64, "sqlite3_result_int64");
    SHARK_REQUIRED(result_double, "sqlite3_result_double");
    SHARK_REQUIRED(result_text, "sqlite3_result_text");
    SHARK_REQUIRED(result_blob, "sqlite3_result_blob");
    SHARK_REQUIRED(result_error, "sqlite3_result_error");
    SHARK_REQUIRED(value_type, "sqlite3_value_type");
    SHARK_REQUIRED(value_double, "sqlite3_value_double");
    SHARK_REQUIRED(value_text, "sqlite3_value_text");
    SHARK_REQUIRED(value_blob, "sqlite3_value_blob");
    SHARK_REQUIRED(value_bytes, "sqlite3_value_bytes");
    SHARK_REQUIRED(aggregate_context, "sqlite3_aggregate_context");
    SHARK_REQUIRED(column_value, "sqlite3_column_value");
    SHARK_OPTIONAL(key, "sqlite3_key");
    SHARK_OPTIONAL(rekey, "sqlite3_rekey");
    // Found through the library's dependencies (its libcrypto), in its own namespace.
    SHARK_OPTIONAL(pbkdf2_hmac_sha1, "PKCS5_PBKDF2_HMAC_SHA1");
    SHARK_OPTIONAL(aes_set_decrypt_key, "AES_set_decrypt_key");
    SHARK_OPTIONAL(aes_decrypt, "AES_decrypt");
    return 0;
}

int shark_aes256_cbc_decrypt_block(const shark_sqlite3_api *api, const unsigned char key[32],
                                   const unsigned char iv[16], const unsigned char in[16],
                                   unsigned char out[16]) {
    if (!api->aes_set_decrypt_key || !api->aes_decrypt) return 1;
    // OpenSSL's AES_KEY is 244 bytes; a generous, aligned buffer stands in for it.
    _Alignas(16) unsigned char schedule[512];
    if (api->aes_set_decrypt_key(key, 256, schedule) != 0) return 1;
    api->aes_decrypt(in, out, schedule);
    for (int i = 0; i < 16; i++) out[i] ^= iv[i];
    memset(schedule, 0, sizeof(schedule));
    return 0;
}
