# ctest's `python` test when the Python package's tests cannot run on this
# configuration (test/CMakeLists.txt): fail, saying what is missing and how
# to fix it, instead of leaving the test out silently.
message(FATAL_ERROR "${IMP_MESSAGE}")
