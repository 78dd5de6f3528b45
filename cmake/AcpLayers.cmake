# SPDX-License-Identifier: Apache-2.0
# acp_add_layer(NAME sources...): one layer of the library (lib/NAME) as an object library.
#
# Layers are added bottom first. A layer's sources include internal headers as
# "layer/file.hpp" through an include root made for that layer alone: a folder of
# symbolic links to lib/NAME and to the folders of the layers added before it. A layer
# that includes from a layer above it therefore does not compile, and the layering in
# docs/architecture.md is kept by the build, not by review.
#
# Sets in the caller's scope: ACP_LAYERS (names so far), ACP_LAYER_TARGETS (acp_NAME
# targets, for per-target options such as the fuzz build's), ACP_LAYER_OBJECTS (the
# $<TARGET_OBJECTS:...> of every layer, what the shared and static libraries are made of).
function(acp_add_layer name)
    set(root ${PROJECT_BINARY_DIR}/layer_includes/${name})
    file(REMOVE_RECURSE ${root})
    file(MAKE_DIRECTORY ${root})
    foreach(visible IN LISTS ACP_LAYERS ITEMS ${name})
        file(CREATE_LINK ${PROJECT_SOURCE_DIR}/lib/${visible} ${root}/${visible} SYMBOLIC)
    endforeach()

    set(target acp_${name})
    add_library(${target} OBJECT ${ARGN})
    target_include_directories(${target}
        PUBLIC
            $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
            $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
        PRIVATE
            ${root})
    target_include_directories(${target} SYSTEM PRIVATE ${RAPIDJSON_INCLUDE_DIR})
    target_compile_definitions(${target} PRIVATE ACP_BUILDING_LIBRARY RAPIDJSON_HAS_STDSTRING=1)
    target_link_libraries(${target} PUBLIC PkgConfig::LIBUV)
    # Linked in layer order: each layer takes the usage requirements of the one below.
    list(LENGTH ACP_LAYERS below_count)
    if(below_count GREATER 0)
        list(GET ACP_LAYERS -1 below)
        target_link_libraries(${target} PUBLIC acp_${below})
    endif()
    acp_set_warnings(${target})

    list(APPEND ACP_LAYERS ${name})
    list(APPEND ACP_LAYER_TARGETS ${target})
    list(APPEND ACP_LAYER_OBJECTS $<TARGET_OBJECTS:${target}>)
    set(ACP_LAYERS ${ACP_LAYERS} PARENT_SCOPE)
    set(ACP_LAYER_TARGETS ${ACP_LAYER_TARGETS} PARENT_SCOPE)
    set(ACP_LAYER_OBJECTS ${ACP_LAYER_OBJECTS} PARENT_SCOPE)
endfunction()
