// `shark_create_function`: SQL functions whose bodies are Swift, on any library of the table.
//
// A function body must call back into its own library (sqlite3_value_int64, result_…), and
// the only thing SQLite hands it is a context pointer. Finding the function's user data takes
// that library's sqlite3_user_data, so each library gets trampolines of its own: a slot holds
// the library's table and the handler, and the slot's trampolines pass both on. A process
// loads two libraries at most (the system SQLite, an isolated SQLCipher); four slots spare.
#include "CSQLite.h"
#include <pthread.h>

typedef struct function_slot {
    const shark_sqlite3_api *api;
    shark_function_handler handler;
} function_slot;

#define SLOT_COUNT 4
static function_slot slots[SLOT_COUNT];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

#define TRAMPOLINES(n)                                                                                      \
    static void scalar_##n(shark_sqlite3_context *context, int count, shark_sqlite3_value **values) {      \
        slots[n].handler(slots[n].api, slots[n].api->user_data(context), 0, context, count, values);      \
    }                                                                                                       \
    static void step_##n(shark_sqlite3_context *context, int count, shark_sqlite3_value **values) {        \
        slots[n].handler(slots[n].api, slots[n].api->user_data(context), 1, context, count, values);      \
    }                                                                                                       \
    static void final_##n(shark_sqlite3_context *context) {                                               \
        slots[n].handler(slots[n].api, slots[n].api->user_data(context), 2, context, 0, 0);               \
    }

TRAMPOLINES(0)
TRAMPOLINES(1)
TRAMPOLINES(2)
TRAMPOLINES(3)

static const shark_sqlite3_function scalars[SLOT_COUNT] = {scalar_0, scalar_1, scalar_2, scalar_3};
static const shark_sqlite3_function steps[SLOT_COUNT] = {step_0, step_1, step_2, step_3};
static void (*const finals[SLOT_COUNT])(shark_sqlite3_context *) = {final_0, final_1, final_2, final_3};

/// The slot of `api`, given one the first time; -1 when all are taken.
static int slot_for(const shark_sqlite3_api *api, shark_function_handler handler) {
    int found = -1;
    pthread_mutex_lock(&slots_lock);
    for (int index = 0; index < SLOT_COUNT; index++) {
        if (slots[index].api == api || slots[index].api == 0) {
            slots[index].api = api;
            slots[index].handler = handler;
            found = index;
            break;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return found;
}

int shark_create_function(const shark_sqlite3_api *api, shark_sqlite3 *db, const char *name, int count,
                          int aggregate, void *user_data, shark_function_handler handler,
                          void (*destroy)(void *)) {
    int slot = slot_for(api, handler);
    if (slot < 0) {
        if (destroy) destroy(user_data);
        return SHARK_SQLITE_ERROR;
    }
    int flags = SHARK_SQLITE_UTF8 | SHARK_SQLITE_DETERMINISTIC;
    if (aggregate) {
        return api->create_function_v2(db, name, count, flags, user_data, 0, steps[slot], finals[slot], destroy);
    }
    return api->create_function_v2(db, name, count, flags, user_data, scalars[slot], 0, 0, destroy);
}
