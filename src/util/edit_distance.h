// edit_distance.h — how far a typo is from a name, for "did you mean" hints
// (config keys, command options).
#pragma once
#include <stddef.h>

// Edit distance with adjacent transpositions counting as one edit (optimal
// string alignment), so "d_modle" is one edit from "d_model". SIZE_MAX if
// either string is longer than 64 characters.
size_t edit_distance(const char *a, const char *b);

// A plausible typo of `name`: about one edit per three characters of it.
static inline int edit_is_typo(size_t distance, size_t name_len) { return distance <= (name_len + 2) / 3; }
