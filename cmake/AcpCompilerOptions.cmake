# SPDX-License-Identifier: Apache-2.0
# Warnings and sanitizers shared by every target of the project.

# acp_set_warnings(target [TESTS]): TESTS leaves out -Wnull-dereference, whose optimizer
# analysis cannot see that a REQUIRE before a dereference ends the test case, and so
# flags test code (and inlined libstdc++ internals) that is correct.
function(acp_set_warnings target)
    if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
        target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor
            -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual -Wformat=2)
        if(NOT "TESTS" IN_LIST ARGN)
            target_compile_options(${target} PRIVATE -Wnull-dereference)
        endif()
        if(ACP_WARNINGS_AS_ERRORS)
            target_compile_options(${target} PRIVATE -Werror)
        endif()
    endif()
endfunction()

if(ACP_SANITIZE)
    add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=address,undefined)
endif()
