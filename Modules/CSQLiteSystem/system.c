// The only file in the project that includes the system sqlite3.h; it stays private to this
// target so that no Swift module ever sees real sqlite3 declarations.
#include "CSQLiteSystem.h"

#include <sqlite3.h>
#include <string.h>

#define SHARK_SET(field, function) api->field = (__typeof__(api->field))(function)

void shark_sqlite3_api_system(shark_sqlite3_api *api) {
    memset(api, 0, sizeof(*api));
    SHARK_SET(libversion_number, sqlite3_libversion_number);
    SHARK_SET(libversion, sqlite3_libversion);
    SHARK_SET(threadsafe, sqlite3_threadsafe);
    SHARK_SET(open_v2, sqlite3_open_v2);
    SHARK_SET(close_v2, sqlite3_close_v2);
    SHARK_SET(errmsg, sqlite3_errmsg);
    SHARK_SET(extended_errcode, sqlite3_extended_errcode);
    SHARK_SET(errstr, sqlite3_errstr);
    SHARK_SET(extended_result_codes, sqlite3_extended_result_codes);
    SHARK_SET(exec, sqlite3_exec);
    SHARK_SET(prepare_v2, sqlite3_prepare_v2);
#if SQLITE_VERSION_NUMBER >= 3020000
    SHARK_SET(prepare_v3, sqlite3_prepare_v3);
#endif
    SHARK_SET(finalize, sqlite3_finalize);
    SHARK_SET(reset, sqlite3_reset);
    SHARK_SET(clear_bindings, sqlite3_clear_bindings);
    SHARK_SET(step, sqlite3_step);
    SHARK_SET(bind_parameter_count, sqlite3_bind_parameter_count);
    SHARK_SET(bind_null, sqlite3_bind_null);
    SHARK_SET(bind_int64, sqlite3_bind_int64);
    SHARK_SET(bind_double, sqlite3_bind_double);
    SHARK_SET(bind_text, sqlite3_bind_text);
    SHARK_SET(bind_blob, sqlite3_bind_blob);
    SHARK_SET(column_count, sqlite3_column_count);
    SHARK_SET(stmt_readonly, sqlite3_stmt_readonly);
    SHARK_SET(column_name, sqlite3_column_name);
    SHARK_SET(column_type, sqlite3_column_type);
    SHARK_SET(column_int64, sqlite3_column_int64);
    SHARK_SET(column_double, sqlite3_column_double);
    SHARK_SET(column_text, sqlite3_column_text);
    SHARK_SET(column_blob, sqlite3_column_blob);
    SHARK_SET(column_bytes, sqlite3_column_bytes);
    SHARK_SET(changes, sqlite3_changes);
    SHARK_SET(last_insert_rowid, sqlite3_last_insert_rowid);
    SHARK_SET(busy_timeout, sqlite3_busy_timeout);
    SHARK_SET(sql, sqlite3_sql);
    SHARK_SET(get_autocommit, sqlite3_get_autocommit);
    SHARK_SET(free, sqlite3_free);
    SHARK_SET(interrupt, sqlite3_interrupt);
    SHARK_SET(db_config, sqlite3_db_config);
    SHARK_SET(limit, sqlite3_limit);
    SHARK_SET(set_authorizer, sqlite3_set_authorizer);
    SHARK_SET(create_function_v2, sqlite3_create_function_v2);
    SHARK_SET(user_data, sqlite3_user_data);
    SHARK_SET(value_int64, sqlite3_value_int64);
    SHARK_SET(result_null, sqlite3_result_null);
    SHARK_SET(result_int64, sqlite3_result_int64);
    SHARK_SET(result_double, sqlite3_result_double);
    SHARK_SET(result_text, sqlite3_result_text);
    SHARK_SET(result_blob, sqlite3_result_blob);
    SHARK_SET(result_error, sqlite3_result_error);
    SHARK_SET(value_type, sqlite3_value_type);
    SHARK_SET(value_double, sqlite3_value_double);
    SHARK_SET(value_text, sqlite3_value_text);
    SHARK_SET(value_blob, sqlite3_value_blob);
    SHARK_SET(value_bytes, sqlite3_value_bytes);
    SHARK_SET(aggregate_context, sqlite3_aggregate_context);
    SHARK_SET(column_value, sqlite3_column_value);
}
