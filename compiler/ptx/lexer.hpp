#pragma once
// Splits PTX text into tokens for parser.cpp. A word is an identifier with its dot and "::"
// suffixes kept together ("add.rz.f32", "%tid.x", ".ptr.global.align", "ld.global.L1::evict_last");
// numbers keep their spelling ("0f3F800000", "1.5e-3", "0x1F", "7U"). Comments are set aside with
// the index of the token they precede so the parser can keep them as items.

#include "util/error.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace d4r::compiler::ptx {

enum class TokenKind : uint8_t { word, number, string, punct, end };

// 20 bytes, the text being Lexer::text(token) or Lexed::text(token).
struct Token {
  uint32_t offset = 0;
  uint32_t size = 0;
  int32_t line = 0;
  int32_t column = 0;
  TokenKind kind = TokenKind::end;
};

struct CommentToken {
  std::string_view text;
  int64_t before_token = 0; // index of the first token after the comment
  int32_t line = 0;
  int32_t column = 0;
};

// Reads tokens one at a time: the parser keeps only a few in flight, since an array of the million
// tokens of a 5 MB module costs more (in fresh pages) than lexing them.
class Lexer {
public:
  explicit Lexer(std::string_view text) : m_text(text) {}

  // The next token, then TokenKind::end at every later call. Comments skipped on the way are
  // appended to `comments`, before_token being the index of the token returned. Errors
  // (ErrorCode::invalid_argument): "ptx:LINE:COL: unexpected character '#'", unterminated strings
  // and block comments, texts over 4 GiB (offsets are 32 bits).
  [[nodiscard]] Expected<Token> next(std::vector<CommentToken>& comments);

  std::string_view text(const Token& token) const
  {
    return m_text.substr(token.offset, token.size);
  }

private:
  char at(size_t i) const { return i < m_text.size() ? m_text[i] : '\0'; }
  Error error_here(const std::string& what) const;
  void advance(size_t count);
  size_t word_end(size_t i) const;
  size_t number_end(size_t i) const;
  Expected<void> skip_comment(std::vector<CommentToken>& comments);
  Expected<size_t> string_end(size_t i) const;

  std::string_view m_text;
  size_t m_pos = 0;
  int32_t m_line = 1;
  int32_t m_column = 1;
  int64_t m_count = 0; // tokens returned so far
};

// Every token of a text, ending with one TokenKind::end token; `source` is the lexed text, which
// must outlive this (tests, benchmarks and tools; the parser streams).
struct Lexed {
  std::string_view source;
  std::vector<Token> tokens;
  std::vector<CommentToken> comments;

  std::string_view text(const Token& token) const
  {
    return source.substr(token.offset, token.size);
  }
};

[[nodiscard]] Expected<Lexed> lex(std::string_view text);

} // namespace d4r::compiler::ptx
