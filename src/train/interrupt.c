// interrupt.c — see interrupt.h.
#include "interrupt.h"

#include <string.h>
#include <unistd.h>

#include "util/atomic_file.h"

static volatile sig_atomic_t g_stop;

static const int STOP_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP, SIGXCPU, SIGUSR1, SIGUSR2};
#define N_STOP (sizeof STOP_SIGNALS / sizeof STOP_SIGNALS[0])

static void on_signal(int sig) {
    if (g_stop) {  // the second request: go now, leaving no half-written temporary file
        atomic_signal_cleanup();
        _exit(128 + sig);
    }
    g_stop = sig;
}

void interrupt_install(void) {
    g_stop = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_STOP; i++) sigaddset(&sa.sa_mask, STOP_SIGNALS[i]);  // one handler at a time
    for (size_t i = 0; i < N_STOP; i++) sigaction(STOP_SIGNALS[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);  // a closed stdout must be a write error, not a kill
    signal(SIGXFSZ, SIG_IGN);  // a file-size limit must be a write error, not a kill
}

int interrupt_requested(void) { return g_stop; }

const char *interrupt_name(int sig) {
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGXCPU: return "SIGXCPU";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    }
    return "a signal";
}
