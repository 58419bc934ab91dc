// pause.h — deterministic pause points for tests of signals and kills.
//
// A test sets LMTRAIN_PAUSE_AT to a comma-separated list of points; when the
// process reaches one it prints "lmtrain: paused at POINT (pid N)" to stderr
// and stops itself with SIGSTOP. The test sees the stop (waitpid WUNTRACED),
// does what it came to do at exactly that moment (a signal, a kill, a second
// writer, a hash of the run folder) and sends SIGCONT. Without the variable a
// pause point costs one comparison.
//
// A point is NAME (first hit), NAME:K (the K-th hit) or NAME@ARG (the first hit
// whose argument is ARG, e.g. "write@checkpoint.bin"; NAME@ARG:K likewise).
// The points (grep pause_point for the list):
//   lock       right after the run folder's lock is taken
//   step       after each optimizer step, before its checkpoint decision
//   eval       inside an evaluation during training, after its first batch
//   eval_split inside a whole-split evaluation (lmtrain eval, ablate), after its first batch
//   write@FILE halfway through writing FILE's temporary file (its basename)
#pragma once

// Stops the process here if LMTRAIN_PAUSE_AT names this point (arg may be NULL).
// Async-signal-unsafe; call from normal code only.
void pause_point(const char *name, const char *arg);
