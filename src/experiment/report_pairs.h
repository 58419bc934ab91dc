// report_pairs.h — the paired-difference part of report.md, and the same
// verdicts as plain lines for the terminal.
#pragma once
#include <stdio.h>

#include "experiment/results.h"

// The "## Paired differences" section: a row per kind against the baseline,
// then a row "b − a" per other pair, and one sentence per comparison.
void report_pairs_md(const Ablation *a, FILE *f);
// The verdicts of every pair of kinds (later minus earlier in the plan), one
// plain line each, for the terminal at the end of `ablate`.
void report_verdicts(const Ablation *a, FILE *f);
