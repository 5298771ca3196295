// A HIP source with a syntax error (the statement lacks its semicolon): every backend answers
// rejected with the compiler's message.
extern "C" __attribute__((global)) void d4r_syntax_error(float* out)
{
  out[0] = 1.0f
}
