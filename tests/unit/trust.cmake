# trust/: Ed25519 keys, key files, signed objects, the rebuild sample and the byte comparison.
d4r_test(test_trust
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_trust_keys.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_trust_key_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_trust_object_signature.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_trust_rebuild.cpp
  LIBS d4r_trust d4r_util)
