// data_check.h — is the data a configuration names now the data a saved run
// trained on? For `ablate`, which checks every run it keeps before it trains
// the others: a corpus changed between two calls would otherwise leave the
// finished runs on the old text and train the rest on the new one, and the
// report would compare the two as if they were alike.
#pragma once

#include "config/config.h"

// 0 if the checkpoint at `ckpt` trained on the data `c` names (vocabulary and
// fingerprint: the whole corpus's size and content hash; a checkpoint too old
// to record them passes), else ERR_RUNTIME saying what differs.
int checkpoint_data_check(const char *ckpt, const Config *c);
