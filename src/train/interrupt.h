// interrupt.h — how training answers signals (README "Stopping and resuming").
//
// Asked to stop — SIGINT (Ctrl-C), SIGTERM, SIGHUP (terminal or ssh session
// closed), SIGXCPU (CPU-time limit), SIGUSR1/SIGUSR2 (what batch schedulers
// send before a kill) — training finishes the current step, abandons an
// evaluation in progress (within one batch), saves a checkpoint and exits
// 128 + the signal (130, 143, 129, ...). A second such signal exits at once
// with 128 + that signal; a checkpoint being written at that moment is
// abandoned: its temporary file is removed and the previous checkpoint stays.
// SIGPIPE is ignored: a closed stdout shows up as a write error that the
// progress output reports (train.c then saves and stops, exit 141).
#pragma once
#include <signal.h>

// Installs the handlers (and ignores SIGPIPE); clears any earlier request.
void interrupt_install(void);
// The signal that asked training to stop, 0 if none.
int interrupt_requested(void);
// "SIGINT", "SIGHUP", ... for messages.
const char *interrupt_name(int sig);
