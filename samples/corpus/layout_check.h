// The assertions sass_layout_check.cpp and counters_layout_check.cpp make of the launch
// tracer's hand-made CUPTI declarations against the toolkit's: a field at the same offset
// as CUPTI's, and the size a struct is told (up to its last field) equal to CUPTI's
// *_STRUCT_SIZE.
#pragma once
#include <cstddef>

#define SAME_AT(mine, theirs, m, t) \
  static_assert(offsetof(mine, m) == offsetof(theirs, t), #mine "::" #m)
#define SIZE_TO(T, f) (offsetof(T, f) + sizeof(T::f))
#define SAME_SIZE(mine, last, theirs_size) \
  static_assert(SIZE_TO(mine, last) == (theirs_size), #mine " size told")
