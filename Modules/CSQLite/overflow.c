// `shark_arg(i)`: how a query binds more values than the library's parameter limit (999 for
// the SQLite 3.15 inside Debian's SQLCipher, 32,766 for newer ones).
//
// The values past the limit are not spliced into the SQL text; the text names them by
// position, `shark_arg(1000)`, and this function returns them from a table the statement's
// runner installs on its own thread just before stepping (statements run on the thread that
// steps them, and a connection is used by one thread at a time). The function is
// deterministic with a constant argument, so SQLite evaluates each call once per execution,
// as it would read a bound parameter, and the value carries no affinity, as a parameter
// carries none: the query means exactly what it would mean with `?`.
#include "CSQLite.h"

static _Thread_local const shark_overflow_arguments *current_arguments;

void shark_set_overflow_arguments(const shark_overflow_arguments *arguments) {
    current_arguments = arguments;
}

static void overflow_argument(shark_sqlite3_context *context, int count, shark_sqlite3_value **values) {
    const shark_overflow_arguments *arguments = current_arguments;
    if (!arguments || count != 1) {
        // Without installed arguments nothing can be answered: only SharkORM writes these calls.
        return;
    }
    const shark_sqlite3_api *api = arguments->api;
    shark_sqlite3_int64 index = api->value_int64(values[0]);
    if (index < 0 || index >= arguments->count) {
        api->result_error(context, "shark_arg: no such argument", -1);
        return;
    }
    const shark_argument *argument = &arguments->values[index];
    switch (argument->type) {
    case SHARK_SQLITE_INTEGER: api->result_int64(context, argument->integer); break;
    case SHARK_SQLITE_FLOAT: api->result_double(context, argument->real); break;
    case SHARK_SQLITE_TEXT:
        api->result_text(context, argument->bytes ? argument->bytes : "", argument->length,
                         (shark_sqlite3_destructor)-1);
        break;
    case SHARK_SQLITE_BLOB:
        api->result_blob(context, argument->bytes ? argument->bytes : "", argument->length,
                         (shark_sqlite3_destructor)-1);
        break;
    default: api->result_null(context); break;
    }
}

int shark_register_overflow_function(const shark_sqlite3_api *api, shark_sqlite3 *db) {
    return api->create_function_v2(db, "shark_arg", 1, SHARK_SQLITE_UTF8 | SHARK_SQLITE_DETERMINISTIC, 0,
                                   overflow_argument, 0, 0, 0);
}
