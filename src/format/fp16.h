// fp16.h — IEEE 754 binary16 ("half") conversion, written out by hand.
//
// For inspect's drift study: what happens to a fast-weight state stored in
// float16 (11 significant bits, largest finite 65504) instead of float32.
// Rounding is to nearest, ties to even, as the hardware conversions do;
// values of magnitude >= 65520 become infinity, below 2^-14 go subnormal, NaN
// stays NaN.
#pragma once
#include <stddef.h>
#include <stdint.h>

uint16_t fp16_from_f32(float x);
float fp16_to_f32(uint16_t h);
// x rounded to the nearest float16 value, returned as a float (exact).
float fp16_round(float x);
// x (n) rounded in place.
void fp16_round_array(float *x, size_t n);
