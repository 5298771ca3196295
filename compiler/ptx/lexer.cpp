#include "compiler/ptx/lexer.hpp"

#include <string>

namespace d4r::compiler::ptx {
namespace {

bool is_word_char(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

bool is_word_start(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' || c == '%' ||
         c == '.';
}

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

bool is_hex_digit(char c)
{
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_punct(char c)
{
  constexpr std::string_view k_punct = ",;:{}[]()<>+-=!|@*";
  return k_punct.find(c) != std::string_view::npos;
}

} // namespace

Error Lexer::error_here(const std::string& what) const
{
  return Error{ErrorCode::invalid_argument,
               "ptx:" + std::to_string(m_line) + ":" + std::to_string(m_column) + ": " + what};
}

void Lexer::advance(size_t count)
{
  for (size_t end = m_pos + count; m_pos < end; ++m_pos) {
    if (m_text[m_pos] == '\n') {
      ++m_line;
      m_column = 1;
    } else {
      ++m_column;
    }
  }
}

// A word continues over identifier characters, over '.' followed by one ("%tid.x", "tex.2d") and
// over "::" followed by one ("L1::evict_last"); a lone ':' ends it (a label).
size_t Lexer::word_end(size_t i) const
{
  ++i;
  while (true) {
    if (is_word_char(at(i))) {
      ++i;
    } else if (at(i) == '.' && is_word_char(at(i + 1))) {
      i += 2;
    } else if (at(i) == ':' && at(i + 1) == ':' && is_word_char(at(i + 2))) {
      i += 3;
    } else {
      return i;
    }
  }
}

// Hex-like forms (0x1F, 0f3F800000, 0d..., 0b101) take every hex digit; decimal forms take digits,
// one fraction, one exponent with its sign, and a U suffix.
size_t Lexer::number_end(size_t i) const
{
  char prefix = at(i + 1);
  bool hex_like = at(i) == '0' && (prefix == 'x' || prefix == 'X' || prefix == 'f' ||
                                   prefix == 'F' || prefix == 'd' || prefix == 'D' ||
                                   prefix == 'b' || prefix == 'B') && is_hex_digit(at(i + 2));
  if (hex_like) {
    i += 2;
    while (is_hex_digit(at(i))) {
      ++i;
    }
  } else {
    while (is_digit(at(i))) {
      ++i;
    }
    if (at(i) == '.' && is_digit(at(i + 1))) {
      for (++i; is_digit(at(i)); ++i) {
      }
    }
    bool has_sign = at(i + 1) == '+' || at(i + 1) == '-';
    if ((at(i) == 'e' || at(i) == 'E') && is_digit(at(i + (has_sign ? 2 : 1)))) {
      for (i += has_sign ? 2 : 1; is_digit(at(i)); ++i) {
      }
    }
  }
  if (at(i) == 'U' || at(i) == 'u') {
    ++i;
  }
  return i;
}

Expected<size_t> Lexer::string_end(size_t i) const
{
  for (++i; i < m_text.size(); ++i) {
    if (m_text[i] == '\\') {
      ++i;
    } else if (m_text[i] == '"') {
      return i + 1;
    } else if (m_text[i] == '\n') {
      break;
    }
  }
  return std::unexpected(error_here("unterminated string"));
}

Expected<void> Lexer::skip_comment(std::vector<CommentToken>& comments)
{
  size_t end = 0;
  if (at(m_pos + 1) == '/') {
    end = m_text.find('\n', m_pos);
    end = end == std::string_view::npos ? m_text.size() : end;
  } else {
    end = m_text.find("*/", m_pos + 2);
    if (end == std::string_view::npos) {
      return std::unexpected(error_here("unterminated block comment"));
    }
    end += 2;
  }
  comments.push_back(CommentToken{m_text.substr(m_pos, end - m_pos), m_count, m_line, m_column});
  advance(end - m_pos);
  return {};
}

Expected<Token> Lexer::next(std::vector<CommentToken>& comments)
{
  if (m_text.size() >= (uint64_t{1} << 32)) {
    return std::unexpected(error_here("text too large (over 4 GiB)"));
  }
  while (m_pos < m_text.size()) {
    char c = m_text[m_pos];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      advance(1);
      continue;
    }
    if (c == '/' && (at(m_pos + 1) == '/' || at(m_pos + 1) == '*')) {
      TRY(skip_comment(comments));
      continue;
    }
    TokenKind kind = TokenKind::punct;
    size_t end = m_pos + 1;
    if (is_word_start(c) && (c != '.' || is_word_char(at(m_pos + 1)))) {
      kind = TokenKind::word;
      end = word_end(m_pos);
    } else if (is_digit(c)) {
      kind = TokenKind::number;
      end = number_end(m_pos);
    } else if (c == '"') {
      kind = TokenKind::string;
      TRY_ASSIGN(end, string_end(m_pos));
    } else if (!is_punct(c)) {
      bool printable = c > ' ' && c < 127;
      constexpr std::string_view k_hex = "0123456789abcdef";
      auto byte = static_cast<unsigned char>(c);
      std::string shown = printable ? std::string(1, c)
                                    : std::string("\\x") + k_hex[byte >> 4] + k_hex[byte & 15];
      return std::unexpected(error_here("unexpected character '" + shown + "'"));
    }
    Token token{static_cast<uint32_t>(m_pos), static_cast<uint32_t>(end - m_pos), m_line,
                m_column, kind};
    advance(end - m_pos);
    ++m_count;
    return token;
  }
  return Token{static_cast<uint32_t>(m_text.size()), 0, m_line, m_column, TokenKind::end};
}


Expected<Lexed> lex(std::string_view text)
{
  Lexer lexer(text);
  Lexed out;
  out.source = text;
  do {
    TRY_ASSIGN(Token token, lexer.next(out.comments));
    out.tokens.push_back(token);
  } while (out.tokens.back().kind != TokenKind::end);
  return out;
}

} // namespace d4r::compiler::ptx
