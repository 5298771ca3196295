d4r_test(test_cache
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_store.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_processes.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_facade.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_trash.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_still_current.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_pins.cpp
  LIBS d4r_cache)
# SQLite itself, to damage an index under a running store as a second connection would.
target_link_libraries(test_cache PRIVATE SQLite::SQLite3)
