// dirs.c — folders for run outputs.
#include "dirs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "util/err.h"

int make_dirs(const char *path) {
    char tmp[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof tmp) return err_set(ERR_USAGE, "bad output folder '%s'", path);
    memcpy(tmp, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != 0) continue;
        char c = tmp[i];
        tmp[i] = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
            return err_set(ERR_RUNTIME, "cannot create folder %s: %s", tmp, strerror(errno));
        tmp[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return err_set(ERR_RUNTIME, "%s exists and is not a folder", path);
    return 0;
}
