add_library(roofline_warnings INTERFACE)
target_compile_options(roofline_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter>)
if(ROOFLINE_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  # Instrumented code is not the product's code: tests skip their speed bands (a sanitized FMA chain
  # ran at 12% of the nominal peak on a Zen 5 host) and keep every correctness check.
  add_compile_definitions(ROOFLINE_SANITIZED=1)
endif()
if(ROOFLINE_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
