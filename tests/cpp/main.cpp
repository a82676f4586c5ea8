// doctest's main for the whole suite (native and wasm builds alike).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
