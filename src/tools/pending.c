// pending.c — commands whose implementation has not landed yet. Each says so
// plainly and exits 2, rather than pretending to work.
#include "tools/commands.h"
#include "util/err.h"

