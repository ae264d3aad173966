// CSQLite: one table of sqlite3 function pointers.
//
// SQLite and SQLCipher export the same `sqlite3_*` symbols, so they can never both be linked
// into one binary. The Swift SQL layer therefore never calls `sqlite3_*` directly: it calls
// through a `shark_sqlite3_api` table, filled either from the system libsqlite3 linked into
// the binary (CSQLiteSystem) or from a library loaded into an isolated namespace
// (`shark_sqlite3_api_load`, used for SQLCipher).
//
// The types are declared here as opaque structs, so this header does not include any
// sqlite3.h and cannot clash with another module (GRDB's, say) that does.
#ifndef SHARK_CSQLITE_H
#define SHARK_CSQLITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct shark_sqlite3 shark_sqlite3;
typedef struct shark_sqlite3_stmt shark_sqlite3_stmt;
typedef struct shark_sqlite3_context shark_sqlite3_context;
typedef struct shark_sqlite3_value shark_sqlite3_value;
typedef void (*shark_sqlite3_function)(shark_sqlite3_context *, int, shark_sqlite3_value **);
typedef int64_t shark_sqlite3_int64;
typedef void (*shark_sqlite3_destructor)(void *);

// Result codes and flags used by the Swift layer (values from the SQLite C API).
#define SHARK_SQLITE_OK 0
#define SHARK_SQLITE_ERROR 1
#define SHARK_SQLITE_BUSY 5
#define SHARK_SQLITE_LOCKED 6
#define SHARK_SQLITE_READONLY 8
#define SHARK_SQLITE_CORRUPT 11
#define SHARK_SQLITE_CANTOPEN 14
#define SHARK_SQLITE_CONSTRAINT 19
#define SHARK_SQLITE_NOTADB 26
#define SHARK_SQLITE_ROW 100
#define SHARK_SQLITE_DONE 101
#define SHARK_SQLITE_CONSTRAINT_UNIQUE 2067
#define SHARK_SQLITE_CONSTRAINT_PRIMARYKEY 1555

#define SHARK_SQLITE_OPEN_READONLY 0x00000001
#define SHARK_SQLITE_OPEN_READWRITE 0x00000002
#define SHARK_SQLITE_OPEN_CREATE 0x00000004
#define SHARK_SQLITE_OPEN_URI 0x00000040
#define SHARK_SQLITE_OPEN_NOMUTEX 0x00008000
#define SHARK_SQLITE_OPEN_PRIVATECACHE 0x00040000

#define SHARK_SQLITE_PREPARE_PERSISTENT 0x01

#define SHARK_SQLITE_LIMIT_VARIABLE_NUMBER 9
#define SHARK_SQLITE_UTF8 1
#define SHARK_SQLITE_DETERMINISTIC 0x800

#define SHARK_SQLITE_DBCONFIG_DQS_DML 1013
#define SHARK_SQLITE_DBCONFIG_DQS_DDL 1014

#define SHARK_SQLITE_INTEGER 1
#define SHARK_SQLITE_FLOAT 2
#define SHARK_SQLITE_TEXT 3
#define SHARK_SQLITE_BLOB 4
#define SHARK_SQLITE_NULL 5

/// The sqlite3 functions the SQL layer uses. Entries marked optional may be NULL when the
/// loaded library is too old to have them (SQLCipher 3.4.1 is SQLite 3.15.2).
typedef struct shark_sqlite3_api {
    int (*libversion_number)(void);
    const char *(*libversion)(void);
    int (*threadsafe)(void);
    int (*open_v2)(const char *, shark_sqlite3 **, int, const char *);
    int (*close_v2)(shark_sqlite3 *);
    const char *(*errmsg)(shark_sqlite3 *);
    int (*extended_errcode)(shark_sqlite3 *);
    const char *(*errstr)(int);
    int (*extended_result_codes)(shark_sqlite3 *, int);
    int (*exec)(shark_sqlite3 *, const char *, int (*)(void *, int, char **, char **), void *, char **);
    int (*prepare_v2)(shark_sqlite3 *, const char *, int, shark_sqlite3_stmt **, const char **);
    int (*prepare_v3)(shark_sqlite3 *, const char *, int, unsigned int, shark_sqlite3_stmt **,
                      const char **);  // optional: SQLite 3.20
    int (*finalize)(shark_sqlite3_stmt *);
    int (*reset)(shark_sqlite3_stmt *);
    int (*clear_bindings)(shark_sqlite3_stmt *);
    int (*step)(shark_sqlite3_stmt *);
    int (*bind_parameter_count)(shark_sqlite3_stmt *);
    int (*bind_null)(shark_sqlite3_stmt *, int);
    int (*bind_int64)(shark_sqlite3_stmt *, int, shark_sqlite3_int64);
    int (*bind_double)(shark_sqlite3_stmt *, int, double);
    int (*bind_text)(shark_sqlite3_stmt *, int, const char *, int, shark_sqlite3_destructor);
    int (*bind_blob)(shark_sqlite3_stmt *, int, const void *, int, shark_sqlite3_destructor);
    int (*column_count)(shark_sqlite3_stmt *);
    const char *(*column_name)(shark_sqlite3_stmt *, int);
    int (*column_type)(shark_sqlite3_stmt *, int);
    shark_sqlite3_int64 (*column_int64)(shark_sqlite3_stmt *, int);
    double (*column_double)(shark_sqlite3_stmt *, int);
    const unsigned char *(*column_text)(shark_sqlite3_stmt *, int);
    const void *(*column_blob)(shark_sqlite3_stmt *, int);
    int (*column_bytes)(shark_sqlite3_stmt *, int);
    int (*changes)(shark_sqlite3 *);
    shark_sqlite3_int64 (*last_insert_rowid)(shark_sqlite3 *);
    int (*busy_timeout)(shark_sqlite3 *, int);
    const char *(*sql)(shark_sqlite3_stmt *);
    int (*stmt_readonly)(shark_sqlite3_stmt *);
    int (*get_autocommit)(shark_sqlite3 *);
    void (*free)(void *);
    void (*interrupt)(shark_sqlite3 *);
    int (*key)(shark_sqlite3 *, const void *, int);    // optional: SQLCipher only
    int (*rekey)(shark_sqlite3 *, const void *, int);  // optional: SQLCipher only
    int (*db_config)(shark_sqlite3 *, int, ...);
    // optional: OpenSSL's PKCS5_PBKDF2_HMAC_SHA1 from SQLCipher's own libcrypto, to derive a
    // passphrase's key once instead of once per connection. Returns 1 on success.
    int (*pbkdf2_hmac_sha1)(const char *pass, int pass_length, const unsigned char *salt, int salt_length,
                            int iterations, int key_length, unsigned char *out);
    // optional: OpenSSL's AES_set_decrypt_key and AES_decrypt from SQLCipher's libcrypto, to
    // tell a wrong key from a damaged first page (see shark_cipher_first_block).
    int (*aes_set_decrypt_key)(const unsigned char *key, int bits, void *aes_key);
    void (*aes_decrypt)(const unsigned char *in, unsigned char *out, const void *aes_key);
    int (*limit)(shark_sqlite3 *, int, int);
    int (*set_authorizer)(shark_sqlite3 *,
                          int (*)(void *, int, const char *, const char *, const char *, const char *), void *);
    int (*create_function_v2)(shark_sqlite3 *, const char *, int, int, void *, shark_sqlite3_function,
                              shark_sqlite3_function, void (*)(shark_sqlite3_context *), void (*)(void *));
    void *(*user_data)(shark_sqlite3_context *);
    shark_sqlite3_int64 (*value_int64)(shark_sqlite3_value *);
    void (*result_null)(shark_sqlite3_context *);
    void (*result_int64)(shark_sqlite3_context *, shark_sqlite3_int64);
    void (*result_double)(shark_sqlite3_context *, double);
    void (*result_text)(shark_sqlite3_context *, const char *, int, shark_sqlite3_destructor);
    void (*result_blob)(shark_sqlite3_context *, const void *, int, shark_sqlite3_destructor);
    void (*result_error)(shark_sqlite3_context *, const char *, int);
    // SharkORM's own SQL functions (shark_add, shark_sum, like…) read their arguments and keep
    // an aggregate's state with these.
    int (*value_type)(shark_sqlite3_value *);
    double (*value_double)(shark_sqlite3_value *);
    const unsigned char *(*value_text)(shark_sqlite3_value *);
    const void *(*value_blob)(shark_sqlite3_value *);
    int (*value_bytes)(shark_sqlite3_value *);
    void *(*aggregate_context)(shark_sqlite3_context *, int);
    // Reading a result column's storage class and value with one column lookup (strict reads).
    shark_sqlite3_value *(*column_value)(shark_sqlite3_stmt *, int);
} shark_sqlite3_api;

/// Fills `api` from the library at `path`. When `isolated` is non-zero the library is loaded
/// with `RTLD_LOCAL | RTLD_DEEPBIND`, so its `sqlite3_*` symbols can never bind to, or be
/// bound by, another SQLite in the process. Returns 0 on success; otherwise writes a message
/// into `error`.
int shark_sqlite3_api_load(const char *path, int isolated, shark_sqlite3_api *api, char *error,
                           size_t error_capacity);

/// A value bound through `shark_arg(i)` rather than a `?`: see overflow.c.
typedef struct shark_argument {
    int type;  // SHARK_SQLITE_INTEGER, _FLOAT, _TEXT, _BLOB or _NULL
    int64_t integer;
    double real;
    const void *bytes;  // text (UTF-8) or blob bytes, owned by the caller
    int length;
} shark_argument;

/// The values `shark_arg(i)` returns while a statement runs on the calling thread.
typedef struct shark_overflow_arguments {
    const shark_sqlite3_api *api;
    const shark_argument *values;
    int count;
} shark_overflow_arguments;

/// Decrypts one AES-256-CBC block: `out = AES-decrypt(key, in) XOR iv`. Returns 0 on success,
/// 1 when the library has no AES functions.
int shark_aes256_cbc_decrypt_block(const shark_sqlite3_api *api, const unsigned char key[32],
                                   const unsigned char iv[16], const unsigned char in[16],
                                   unsigned char out[16]);

/// Registers `shark_arg(i)` on `db`: a deterministic SQL function returning value `i` of the
/// arguments installed on the calling thread. Returns an SQLite result code.
int shark_register_overflow_function(const shark_sqlite3_api *api, shark_sqlite3 *db);

/// Installs (or, with NULL, removes) the arguments `shark_arg` reads on this thread.
void shark_set_overflow_arguments(const shark_overflow_arguments *arguments);

/// What SharkORM's own SQL functions run: called with the library's table (the function
/// reads its arguments through it), the function's user data, the phase (0 a scalar call,
/// 1 an aggregate's step, 2 its final call), and SQLite's arguments.
typedef void (*shark_function_handler)(const shark_sqlite3_api *api, void *user_data, int phase,
                                       shark_sqlite3_context *context, int count, shark_sqlite3_value **values);

/// Registers an SQL function whose calls go to `handler` (see functions.c): a scalar function,
/// or with `aggregate` non-zero a step and a final call. `destroy` receives `user_data` when
/// SQLite drops the function. Returns an SQLite result code.
int shark_create_function(const shark_sqlite3_api *api, shark_sqlite3 *db, const char *name, int count,
                          int aggregate, void *user_data, shark_function_handler handler,
                          void (*destroy)(void *));

// Inline helpers: Swift cannot spell SQLITE_TRANSIENT, and calling through these keeps the
// Swift side free of optional function-pointer unwrapping on hot paths.

static inline int shark_bind_text(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                  int index, const char *text, int length) {
    return api->bind_text(stmt, index, text, length, (shark_sqlite3_destructor)-1);
}

static inline int shark_bind_blob(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                  int index, const void *bytes, int length) {
    return api->bind_blob(stmt, index, bytes, length, (shark_sqlite3_destructor)-1);
}

static inline int shark_bind_int64(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                   int index, int64_t value) {
    return api->bind_int64(stmt, index, value);
}

static inline int shark_bind_double(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                    int index, double value) {
    return api->bind_double(stmt, index, value);
}

static inline int shark_bind_null(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                  int index) {
    return api->bind_null(stmt, index);
}

/// `sqlite3_db_config(db, op, value, NULL)` for the integer options: the C function is
/// variadic, which Swift cannot call through a pointer.
static inline int shark_db_config_int(const shark_sqlite3_api *api, shark_sqlite3 *db, int op, int value) {
    return api->db_config(db, op, value, (int *)0);
}

/// `sqlite3_result_text` and `_blob` with SQLITE_TRANSIENT: SQLite copies the bytes.
static inline void shark_result_text(const shark_sqlite3_api *api, shark_sqlite3_context *context,
                                     const char *text, int length) {
    api->result_text(context, text, length, (shark_sqlite3_destructor)-1);
}

static inline void shark_result_blob(const shark_sqlite3_api *api, shark_sqlite3_context *context,
                                     const void *bytes, int length) {
    api->result_blob(context, bytes, length, (shark_sqlite3_destructor)-1);
}

// Strict reads: the column looked up once, its storage class returned, and its value written
// to `out` only when it is of the class asked for (see SQLRow's integer(at:) and siblings).

static inline int shark_column_integer(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt, int index,
                                       int64_t *out) {
    shark_sqlite3_value *value = api->column_value(stmt, index);
    int type = api->value_type(value);
    if (type == SHARK_SQLITE_INTEGER) *out = api->value_int64(value);
    return type;
}

static inline int shark_column_real(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt, int index,
                                    double *out) {
    shark_sqlite3_value *value = api->column_value(stmt, index);
    int type = api->value_type(value);
    if (type == SHARK_SQLITE_FLOAT || type == SHARK_SQLITE_INTEGER) *out = api->value_double(value);
    return type;
}

/// Text (`expected` SHARK_SQLITE_TEXT) or a blob (SHARK_SQLITE_BLOB): the bytes and their count.
static inline int shark_column_bytes_of(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt, int index,
                                        int expected, const void **bytes, int *count) {
    shark_sqlite3_value *value = api->column_value(stmt, index);
    int type = api->value_type(value);
    if (type == expected) {
        // The pointer before the count: the count is that of the form asked for.
        *bytes = expected == SHARK_SQLITE_TEXT ? (const void *)api->value_text(value) : api->value_blob(value);
        *count = api->value_bytes(value);
    }
    return type;
}

static inline int shark_step(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt) {
    return api->step(stmt);
}

static inline int shark_reset(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt) {
    return api->reset(stmt);
}

static inline int shark_column_type(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                    int index) {
    return api->column_type(stmt, index);
}

static inline int64_t shark_column_int64(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                         int index) {
    return api->column_int64(stmt, index);
}

static inline double shark_column_double(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                         int index) {
    return api->column_double(stmt, index);
}

static inline const unsigned char *shark_column_text(const shark_sqlite3_api *api,
                                                     shark_sqlite3_stmt *stmt, int index) {
    return api->column_text(stmt, index);
}

static inline const void *shark_column_blob(const shark_sqlite3_api *api,
                                            shark_sqlite3_stmt *stmt, int index) {
    return api->column_blob(stmt, index);
}

static inline int shark_column_bytes(const shark_sqlite3_api *api, shark_sqlite3_stmt *stmt,
                                     int index) {
    return api->column_bytes(stmt, index);
}

#endif
