// doctest's own main for the translator tests; they need none of scanlab's seed handling.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
