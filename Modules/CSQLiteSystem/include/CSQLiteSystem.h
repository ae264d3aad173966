// Fills a CSQLite function table from the system libsqlite3 linked into this binary.
#ifndef SHARK_CSQLITE_SYSTEM_H
#define SHARK_CSQLITE_SYSTEM_H

#include "../../CSQLite/include/CSQLite.h"

/// Writes the addresses of the linked libsqlite3's functions into `api`.
void shark_sqlite3_api_system(shark_sqlite3_api *api);

#endif
