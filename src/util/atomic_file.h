// atomic_file.h — write a file so that readers see the old version or the new
// one, never half of either (a crash, a full disk or a kill mid-write leaves
// the previous file in place).
//
// Recipe: write PATH.tmp-PID-N (a name no other writer uses), check every write, fsync it, close it (checked),
// rename it over PATH, fsync the directory so the rename itself is durable.
// On any failure before the rename, the temporary file is unlinked and PATH untouched;
// the function returns ERR_RUNTIME with a message naming PATH and strerror
// (ENOSPC / EFBIG add "disk full or file size limit").
//
// Exceeding RLIMIT_FSIZE raises SIGXFSZ, whose default action kills the
// process before write() can report EFBIG: main() should ignore SIGXFSZ.
#pragma once
#include <stddef.h>
#include <stdio.h>

// ---- binary: write a list of byte ranges straight from memory (no copy) ----
typedef struct {
    const void *data;
    size_t bytes;
} AtomicChunk;

// PATH must not exist or be a regular file: a FIFO, socket, device, folder or
// symbolic link there is refused (ERR_RUNTIME), never replaced.
int atomic_write_chunks(const char *path, const AtomicChunk *chunks, size_t n);

// For a signal handler that exits at once: unlinks the temporary file being
// written, if any (async-signal-safe). The previous PATH stays as it was.
void atomic_signal_cleanup(void);
// Removes the temporary files in `dir` left by writers that no longer run
// (killed mid-write); returns how many. Call with the folder's lock held.
int atomic_remove_stale(const char *dir);

// ---- text: fprintf into memory, then commit the whole file at once ----
// The stream `f` is an in-memory stream (open_memstream), so formatting never
// touches the disk and every disk error is seen, with its errno, at commit.
// Usage:
//     AtomicFile a;
//     if (atomic_open(&a, path)) return ERR_RUNTIME;
//     fprintf(a.f, "step,loss\n");
//     ...
//     return atomic_commit(&a);     // or atomic_abort(&a) to give up
typedef struct {
    FILE *f;      // write here
    char *buf;    // owned by the memstream until it is closed
    size_t size;
    char *path;   // final destination (owned copy)
} AtomicFile;

int atomic_open(AtomicFile *a, const char *path);
// atomic_open of DIR/NAME (NAME may hold folders: "eval/summary.txt")
int atomic_open_in(AtomicFile *a, const char *dir, const char *name);
// Writes the buffered text to `path` atomically; always releases `a`.
int atomic_commit(AtomicFile *a);
// Discards the buffered text; `path` is not touched. Safe on a zeroed struct.
void atomic_abort(AtomicFile *a);
