# tests/golden/test_golden_vectors.cpp: every golden case (tests/golden/cases) translated for the host
# and run on the CPU executor, outputs compared with the NVIDIA recordings (tests/golden/expected).
# A case the translator rejects fails: every stage of the issue is implemented.
d4r_test(test_golden_vectors
  TIMEOUT 600
  SOURCES ${PROJECT_SOURCE_DIR}/tests/golden/test_golden_vectors.cpp
  LIBS d4r_cpu d4r_translate d4r_compiler d4r_util d4r_llvm)
