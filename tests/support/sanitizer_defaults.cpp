// Default sanitizer options of the sanitized build (-DTILEVOLVE_SANITIZE=ON), linked into the
// binary and the test suite only there: any report aborts the process (SIGABRT), so no test that
// checks an exit status can pass on a run that had one, and leaks are reported. ASAN_OPTIONS /
// UBSAN_OPTIONS in the environment still override these.
extern "C" const char* __asan_default_options() {
  return "abort_on_error=1:detect_leaks=1:strict_string_checks=1:check_initialization_order=1";
}
extern "C" const char* __ubsan_default_options() {
  return "print_stacktrace=1:halt_on_error=1:abort_on_error=1";
}
