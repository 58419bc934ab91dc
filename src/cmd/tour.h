// tour.h — what the files of `lmtrain tour` share (src/cmd/tour.c: the
// command and its sections; tour_run.c: the commands it runs and the files
// they write; tour_page.c: the page).
#pragma once
#include <stddef.h>
#include <stdio.h>

#include "format/svg.h"

typedef struct {
    const char *out, *data;
    int quick, fresh;
    size_t steps;
} TourOpts;

typedef struct {
    TourOpts o;
    char dir[4096];
    FILE *page;      // the page being written (an AtomicFile's stream)
    int figures;     // ids of the inline SVGs made unique with this counter
    int failed;      // steps that failed (their section says so)
    int steps_done;  // for the progress lines "[k/N]"
} Tour;

enum { TOUR_STEPS = 11 };  // lab, 4 training runs, 2 inspects, eval, bench, the refusal, the trade's ablation

// A command line for a child: argv-style pointers into fixed cells (a value
// longer than a cell would be cut: cmd_tour refuses paths that long).
enum { MAX_ARGS = 40 };
typedef struct {
    char *v[MAX_ARGS];
    char store[MAX_ARGS][300];
    int n;
} Argv;

// ---- tour_run.c: running lmtrain, reading what it wrote
int tour_exists(const char *path);
// the command line as the reader would type it ("lmtrain ...")
void tour_command_text(char *buf, size_t cap, char *const argv[]);
// `lmtrain ARGV...` (this binary), output in DIR/logs/NAME.out and .err: its exit status
// (128 + signal if killed, -1 if it did not start)
int tour_run_child(Tour *t, const char *name, char *const argv[]);
// removes path and everything under it (the tour's own folders, for --fresh); missing is fine
void tour_remove_tree(const char *path);
// a file's whole text, or NULL; the caller frees it
char *tour_slurp(const char *path);
// the numeric column col of a CSV's rows whose text columns match want (see tour_run.c)
size_t tour_csv_column(const char *path, size_t col, const char *const want[8], double *v, size_t cap);
// appends one printf-formatted argument
void tour_arg(Argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// ---- tour_page.c: the page
void tour_page_begin(Tour *t);
void tour_put_html(FILE *f, const char *s);
void tour_put_svg(Tour *t, const char *doc);
void tour_put_svg_file(Tour *t, const char *rel);
void tour_put_chart(Tour *t, const SvgChart *c, const SvgSeries *s, size_t n, const SvgStyle *st);
void tour_section(Tour *t, const char *id, const char *title, const char *claim);
void tour_command(Tour *t, char *const argv[], int status);
void tour_see(Tour *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
