// The system zlib (Debian: zlib1g-dev), for the compressed frames of sync's change logs.
#include <zlib.h>
