#include "compiler/ptx/parser.hpp"

#include "compiler/ptx/lexer.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <deque>
#include <optional>
#include <string>

namespace d4r::compiler::ptx {
namespace {

constexpr std::array<std::string_view, 4> k_linkages = {".visible", ".extern", ".weak", ".common"};
constexpr std::array<std::string_view, 8> k_spaces = {".reg",   ".sreg",  ".const", ".global",
                                                      ".local", ".param", ".shared", ".tex"};
constexpr std::array<std::string_view, 5> k_line_directives = {".version", ".target",
                                                               ".address_size", ".file", ".loc"};

// The PTX ISA's fundamental and opaque types (9.2 "Types"): the one qualifier of a declaration
// that is its type.
bool is_type_word(std::string_view part)
{
  static constexpr std::string_view k_types[] = {
      ".b8",   ".b16",   ".b32",   ".b64",  ".b128", ".u8",    ".u16",     ".u32",
      ".u64",  ".s8",    ".s16",   ".s32",  ".s64",  ".f16",   ".f16x2",   ".bf16",
      ".bf16x2", ".tf32", ".f32",  ".f64",  ".e4m3", ".e5m2",  ".e4m3x2",  ".e5m2x2",
      ".pred", ".texref", ".samplerref", ".surfref"};
  for (std::string_view type : k_types) {
    if (type == part) {
      return true;
    }
  }
  return false;
}

template <size_t N>
bool is_one_of(std::string_view word, const std::array<std::string_view, N>& set);

// A word that can only begin a new module-level item, never a performance directive of the
// function before it (.maxntid, .noreturn, ...).
bool starts_top_level_item(std::string_view word)
{
  static constexpr std::array<std::string_view, 6> k_item_words = {
      ".entry", ".func", ".section", ".alias", ".callprototype", ".pragma"};
  return is_one_of(word, k_linkages) || is_one_of(word, k_spaces) ||
         is_one_of(word, k_line_directives) || is_one_of(word, k_item_words);
}

template <size_t N>
bool is_one_of(std::string_view word, const std::array<std::string_view, N>& set)
{
  return std::find(set.begin(), set.end(), word) != set.end();
}

// A token with its text, as the parser reads it (Token itself is kept small for memory).
struct TokenView {
  std::string_view text;
  int32_t line = 0;
  int32_t column = 0;
  TokenKind kind = TokenKind::end;
};

bool is_dot_word(const TokenView& token)
{
  return token.kind == TokenKind::word && token.text.front() == '.';
}

bool is_name(const TokenView& token)
{
  return token.kind == TokenKind::word && token.text.front() != '.';
}

// ".ptr.global.align" -> {".ptr", ".global", ".align"}.
std::vector<std::string_view> split_dots(std::string_view word)
{
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start < word.size()) {
    size_t dot = word.find('.', start + 1);
    dot = dot == std::string_view::npos ? word.size() : dot;
    parts.push_back(word.substr(start, dot - start));
    start = dot;
  }
  return parts;
}

bool is_float_spelling(std::string_view text)
{
  if (text.size() > 2 && text[0] == '0') {
    char prefix = text[1];
    if (prefix == 'f' || prefix == 'F' || prefix == 'd' || prefix == 'D') {
      return true;
    }
    if (prefix == 'x' || prefix == 'X' || prefix == 'b' || prefix == 'B') {
      return false;
    }
  }
  return text.find_first_of(".eE") != std::string_view::npos;
}

SourcePos pos_of(const TokenView& token)
{
  return SourcePos{token.line, token.column};
}

class Parser {
public:
  explicit Parser(std::string_view text) : m_lexer(text) {}

  Expected<Module> module();
  Expected<std::vector<Statement>> statements();
  const std::optional<Error>& lex_error() const { return m_lex_error; }

private:
  // Tokens come from the lexer as the parser needs them; a lexing error stops the stream (the
  // parser then sees the end) and is the error the parse reports.
  TokenView peek(size_t ahead = 0)
  {
    while (m_ahead.size() <= ahead && !m_lex_error) {
      Expected<Token> token = m_lexer.next(m_comments);
      if (!token) {
        m_lex_error = std::move(token.error());
        m_ahead.push_back(Token{0, 0, 0, 0, TokenKind::end});
        break;
      }
      m_ahead.push_back(*token);
      if (token->kind == TokenKind::end) {
        break;
      }
    }
    const Token& token = ahead < m_ahead.size() ? m_ahead[ahead] : m_ahead.back();
    return TokenView{m_lexer.text(token), token.line, token.column, token.kind};
  }
  TokenView next()
  {
    TokenView token = peek();
    if (m_ahead.size() > 1 || (!m_ahead.empty() && m_ahead.front().kind != TokenKind::end)) {
      m_ahead.pop_front();
      ++m_pos;
    }
    return token;
  }
  bool at_punct(char c, size_t ahead = 0)
  {
    TokenView token = peek(ahead);
    return token.kind == TokenKind::punct && token.text.front() == c;
  }
  bool accept(char c)
  {
    if (!at_punct(c)) {
      return false;
    }
    next();
    return true;
  }
  std::unexpected<Error> error_at(const TokenView& token, std::string_view what) const;
  Expected<void> expect(char c, std::string_view context);
  Expected<TokenView> expect_name(std::string_view what);
  Expected<int64_t> expect_integer(std::string_view what);
  template <typename Push> void take_comments(Push push);

  Expected<void> top_level_item(Module& module);
  Expected<Directive> line_directive();
  Expected<Directive> semicolon_directive();
  Expected<Directive> block_directive();
  Expected<Variable> qualifiers();
  Expected<void> qualifier_part(Variable& var, std::string_view part, bool& in_pointer);
  Expected<std::string> attribute();
  Expected<void> declarators(const Variable& prototype, bool single, std::vector<Variable>& out);
  Expected<Initializer> initializer();
  Expected<Function> function();
  Expected<std::vector<Variable>> param_list();
  Expected<Block> block();
  Expected<void> statement(std::vector<Statement>& out);
  Expected<void> body_declaration(std::vector<Statement>& out);
  Expected<Instruction> instruction();
  Expected<Operand> operand();
  Expected<Operand> name_operand(const TokenView& token, bool pair_allowed = true);
  Expected<std::vector<Operand>> operand_list(char close);

  // Blocks, initialiser lists and operand lists nest as deep as the input says, and every user of
  // the tree (printer, passes, translator, even its destructor) recurses over it: past this depth
  // the parse fails with an error instead of exhausting the stack somewhere later.
  static constexpr int k_max_nesting = 256;
  class Nesting {
  public:
    explicit Nesting(int& depth) : m_depth(depth) { ++m_depth; }
    ~Nesting() { --m_depth; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

  private:
    int& m_depth;
  };
  Expected<void> check_nesting(const TokenView& token);

  Lexer m_lexer;
  std::deque<Token> m_ahead;
  int m_nesting = 0;
  std::optional<Error> m_lex_error;
  std::vector<CommentToken> m_comments;
  size_t m_pos = 0;
  size_t m_comment = 0;
};

std::unexpected<Error> Parser::error_at(const TokenView& token, std::string_view what) const
{
  std::string found = token.kind == TokenKind::end ? std::string("end of input")
                                                    : "'" + std::string(token.text) + "'";
  return std::unexpected(Error{ErrorCode::invalid_argument,
                               "ptx:" + std::to_string(token.line) + ":" +
                                   std::to_string(token.column) + ": " + std::string(what) +
                                   ", found " + found});
}

Expected<void> Parser::check_nesting(const TokenView& token)
{
  if (m_nesting < k_max_nesting) {
    return {};
  }
  return error_at(token, "nesting deeper than " + std::to_string(k_max_nesting) + " levels");
}

Expected<void> Parser::expect(char c, std::string_view context)
{
  if (!accept(c)) {
    return error_at(peek(), std::string("expected '") + c + "' " + std::string(context));
  }
  return {};
}

Expected<TokenView> Parser::expect_name(std::string_view what)
{
  if (!is_name(peek())) {
    return error_at(peek(), "expected " + std::string(what));
  }
  return next();
}

Expected<int64_t> Parser::expect_integer(std::string_view what)
{
  TokenView token = peek();
  int64_t value = 0;
  const char* end = token.text.data() + token.text.size();
  std::from_chars_result result = std::from_chars(token.text.data(), end, value);
  if (token.kind != TokenKind::number || result.ec != std::errc() || result.ptr != end) {
    return error_at(token, "expected " + std::string(what));
  }
  next();
  return value;
}

// Comments are handed out where an item or statement may start, in source order.
template <typename Push> void Parser::take_comments(Push push)
{
  peek(); // lexes up to the next token, and so past the comments before it
  while (m_comment < m_comments.size() &&
         static_cast<size_t>(m_comments[m_comment].before_token) <= m_pos) {
    push(Comment{std::string(m_comments[m_comment].text)});
    ++m_comment;
  }
}

Expected<Module> Parser::module()
{
  Module module;
  while (true) {
    take_comments([&](Comment comment) { module.items.push_back(Item{std::move(comment)}); });
    if (peek().kind == TokenKind::end) {
      return module;
    }
    TRY(top_level_item(module));
  }
}

Expected<void> Parser::top_level_item(Module& module)
{
  TokenView token = peek();
  if (!is_dot_word(token)) {
    return error_at(token, "expected a directive, variable or function");
  }
  if (is_one_of(token.text, k_line_directives)) {
    TRY_ASSIGN(Directive directive, line_directive());
    module.items.push_back(Item{std::move(directive)});
    return {};
  }
  if (token.text == ".section") {
    TRY_ASSIGN(Directive directive, block_directive());
    module.items.push_back(Item{std::move(directive)});
    return {};
  }
  size_t ahead = 0;
  while (is_dot_word(peek(ahead)) && is_one_of(peek(ahead).text, k_linkages)) {
    ++ahead;
  }
  if (peek(ahead).text == ".entry" || peek(ahead).text == ".func") {
    TRY_ASSIGN(Function function, function());
    module.items.push_back(Item{std::move(function)});
    return {};
  }
  if (ahead > 0 || is_one_of(token.text, k_spaces)) {
    TRY_ASSIGN(Variable prototype, qualifiers());
    std::vector<Variable> variables;
    TRY(declarators(prototype, false, variables));
    TRY(expect(';', "after a declaration"));
    for (Variable& variable : variables) {
      module.items.push_back(Item{std::move(variable)});
    }
    return {};
  }
  TRY_ASSIGN(Directive directive, semicolon_directive());
  module.items.push_back(Item{std::move(directive)});
  return {};
}

// .version 9.0, .target sm_86, debug, .file 1 "a.cu", .loc 1 2 3: the arguments are the tokens
// on the directive's own line.
Expected<Directive> Parser::line_directive()
{
  TokenView name = next();
  Directive directive{std::string(name.text), {}, DirectiveEnd::line, pos_of(name)};
  while (peek().kind != TokenKind::end && peek().line == name.line) {
    directive.args.emplace_back(next().text);
  }
  return directive;
}

Expected<Directive> Parser::semicolon_directive()
{
  TokenView name = next();
  Directive directive{std::string(name.text), {}, DirectiveEnd::semicolon, pos_of(name)};
  while (!at_punct(';')) {
    if (peek().kind == TokenKind::end) {
      return error_at(peek(), "expected ';' after directive '" + std::string(name.text) + "'");
    }
    directive.args.emplace_back(next().text);
  }
  next();
  return directive;
}

// .section .debug_info { ... }: everything up to the matching brace, kept as tokens.
Expected<Directive> Parser::block_directive()
{
  TokenView name = next();
  Directive directive{std::string(name.text), {}, DirectiveEnd::block, pos_of(name)};
  while (!at_punct('{')) {
    if (peek().kind == TokenKind::end) {
      return error_at(peek(), "expected '{' in directive '" + std::string(name.text) + "'");
    }
    directive.args.emplace_back(next().text);
  }
  int64_t depth = 0;
  do {
    if (peek().kind == TokenKind::end) {
      return error_at(peek(), "expected '}' to close directive '" + std::string(name.text) + "'");
    }
    depth += at_punct('{') ? 1 : (at_punct('}') ? -1 : 0);
    directive.args.emplace_back(next().text);
  } while (depth > 0);
  return directive;
}

// Everything before the name: linkage, state space, .align N, vector, type, .attribute(...) and a
// parameter's pointer tail (.ptr .global .align 16), in any order the PTX ISA allows.
Expected<Variable> Parser::qualifiers()
{
  Variable var;
  var.pos = pos_of(peek());
  bool in_pointer = false;
  while (is_dot_word(peek())) {
    TokenView token = next();
    std::vector<std::string_view> parts = split_dots(token.text);
    for (size_t i = 0; i < parts.size(); ++i) {
      if (parts[i] == ".attribute" && i + 1 == parts.size()) {
        TRY_ASSIGN(std::string text, attribute());
        var.attributes.push_back(std::move(text));
        continue;
      }
      TRY(qualifier_part(var, parts[i], in_pointer));
      if (parts[i] != ".align") {
        continue;
      }
      if (i + 1 != parts.size()) {
        return error_at(token, "expected an alignment after '.align'");
      }
      if (in_pointer) {
        TRY_ASSIGN(int64_t align, expect_integer("an alignment after '.align'"));
        var.pointer.push_back(std::to_string(align));
      } else {
        TRY_ASSIGN(var.align, expect_integer("an alignment after '.align'"));
      }
    }
  }
  if (var.type.empty()) {
    return error_at(peek(), "expected a type in the declaration");
  }
  return var;
}

Expected<void> Parser::qualifier_part(Variable& var, std::string_view part, bool& in_pointer)
{
  if (part == ".attribute") {
    // Found by fuzz_ptx_parser: in ".attribute.u32" the word was kept as a plain attribute (or,
    // after .ptr, a pointer word), which prints as ".attribute .u32" and does not parse again.
    return error_at(peek(), "expected '(' after '.attribute'");
  }
  if (in_pointer || part == ".ptr") {
    in_pointer = true;
    var.pointer.emplace_back(part);
  } else if (part == ".align") {
    // handled by the caller, which reads the number
  } else if (is_one_of(part, k_linkages)) {
    var.linkage = std::string(part);
  } else if (is_one_of(part, k_spaces)) {
    var.space = std::string(part);
  } else if (part == ".v2" || part == ".v4" || part == ".v8") {
    var.vector = std::string(part);
  } else if (part == ".entry" || part == ".func") {
    // Found by fuzz_ptx_parser: ".visible .entry.align 4 ..." was a variable with an ".entry"
    // attribute, which prints as the start of a function.
    return error_at(peek(), "'" + std::string(part) + "' cannot qualify a declaration");
  } else if (is_type_word(part)) {
    if (!var.type.empty()) {
      return error_at(peek(), "a declaration has one type, but '" + var.type + "' is followed by '" +
                                  std::string(part) + "'");
    }
    var.type = std::string(part);
  } else {
    // Anything else is kept in order as an attribute; only a known type word is the type, so
    // that printing (attributes, then type) and parsing again gives the same tree.
    var.attributes.emplace_back(part);
  }
  return {};
}

// .attribute(.managed): kept as one string.
Expected<std::string> Parser::attribute()
{
  TRY(expect('(', "after '.attribute'"));
  std::string text = ".attribute(";
  while (!at_punct(')')) {
    if (peek().kind == TokenKind::end) {
      return error_at(peek(), "expected ')' to close '.attribute('");
    }
    text += next().text;
  }
  next();
  return text + ")";
}

Expected<void> Parser::declarators(const Variable& prototype, bool single,
                                   std::vector<Variable>& out)
{
  do {
    Variable var = prototype;
    TRY_ASSIGN(TokenView name, expect_name("a name in the declaration"));
    var.name = std::string(name.text);
    var.pos = pos_of(name);
    if (accept('<')) {
      TRY_ASSIGN(var.range, expect_integer("a register count after '<'"));
      TRY(expect('>', "after the register count"));
    }
    while (accept('[')) {
      int64_t dim = -1;
      if (!at_punct(']')) {
        TRY_ASSIGN(dim, expect_integer("an array size"));
      }
      TRY(expect(']', "after the array size"));
      var.dims.push_back(dim);
    }
    if (accept('=')) {
      TRY_ASSIGN(var.init, initializer());
    }
    out.push_back(std::move(var));
  } while (!single && accept(','));
  return {};
}

Expected<Initializer> Parser::initializer()
{
  TRY(check_nesting(peek()));
  Nesting nesting(m_nesting);
  Initializer init;
  if (accept('{')) {
    init.is_list = true;
    while (!accept('}')) {
      if (!init.elements.empty()) {
        TRY(expect(',', "between initialisers"));
      }
      TRY_ASSIGN(Initializer element, initializer());
      init.elements.push_back(std::move(element));
    }
    return init;
  }
  int64_t depth = 0;
  while (depth > 0 || !(at_punct(',') || at_punct(';') || at_punct('}'))) {
    if (peek().kind == TokenKind::end || at_punct('{')) {
      return error_at(peek(), "expected ',', ';' or '}' after an initialiser");
    }
    depth += at_punct('(') ? 1 : (at_punct(')') ? -1 : 0);
    if (!init.scalar.empty()) {
      init.scalar += ' ';
    }
    init.scalar += next().text;
  }
  if (init.scalar.empty()) {
    return error_at(peek(), "expected an initialiser");
  }
  return init;
}

Expected<Function> Parser::function()
{
  Function function;
  function.pos = pos_of(peek());
  while (is_one_of(peek().text, k_linkages)) {
    function.linkage = std::string(next().text);
  }
  function.is_entry = next().text == ".entry";
  if (!function.is_entry && at_punct('(')) {
    TRY_ASSIGN(function.returns, param_list());
  }
  TRY_ASSIGN(TokenView name, expect_name("a function name"));
  function.name = std::string(name.text);
  if (at_punct('(')) {
    TRY_ASSIGN(function.params, param_list());
  }
  // .maxntid 256, 1, 1 / .noreturn: numbers and commas up to the next directive or the body.
  while (is_dot_word(peek()) && !starts_top_level_item(peek().text)) {
    TokenView directive_name = next();
    Directive directive{std::string(directive_name.text), {}, DirectiveEnd::line,
                        pos_of(directive_name)};
    while (peek().kind == TokenKind::number || at_punct(',')) {
      directive.args.emplace_back(next().text);
    }
    function.performance.push_back(std::move(directive));
  }
  if (accept(';')) {
    return function;
  }
  // PTX 2.x modules declare functions without the ';': the next item (or the end) ends them.
  if (peek().kind == TokenKind::end || starts_top_level_item(peek().text)) {
    return function;
  }
  if (!at_punct('{')) {
    return error_at(peek(), "expected '{' or ';' after function '" + std::string(name.text) + "'");
  }
  TRY_ASSIGN(function.body, block());
  return function;
}

Expected<std::vector<Variable>> Parser::param_list()
{
  TRY(expect('(', "to open a parameter list"));
  std::vector<Variable> params;
  while (!accept(')')) {
    if (!params.empty()) {
      TRY(expect(',', "between parameters"));
    }
    if (!is_dot_word(peek())) {
      return error_at(peek(), "expected a parameter declaration");
    }
    TRY_ASSIGN(Variable prototype, qualifiers());
    TRY(declarators(prototype, true, params));
  }
  return params;
}

Expected<Block> Parser::block()
{
  TRY(check_nesting(peek()));
  Nesting nesting(m_nesting);
  TokenView open = next();
  Block block;
  block.pos = pos_of(open);
  while (true) {
    take_comments([&](Comment comment) { block.statements.push_back(Statement{std::move(comment)}); });
    if (accept('}')) {
      return block;
    }
    if (peek().kind == TokenKind::end) {
      return error_at(peek(), "expected '}' to close the block opened at " +
                                        std::to_string(open.line) + ":" +
                                        std::to_string(open.column));
    }
    TRY(statement(block.statements));
  }
}

Expected<void> Parser::statement(std::vector<Statement>& out)
{
  TokenView token = peek();
  if (at_punct('{')) {
    TRY_ASSIGN(Block nested, block());
    out.push_back(Statement{std::move(nested)});
    return {};
  }
  if (is_dot_word(token)) {
    return body_declaration(out);
  }
  if (is_name(token) && at_punct(':', 1)) {
    next();
    next();
    out.push_back(Statement{Label{std::string(token.text), pos_of(token)}});
    return {};
  }
  if (!is_name(token) && !at_punct('@')) {
    return error_at(token, "expected a statement");
  }
  TRY_ASSIGN(Instruction instruction, instruction());
  out.push_back(Statement{std::move(instruction)});
  return {};
}

Expected<void> Parser::body_declaration(std::vector<Statement>& out)
{
  std::string_view word = peek().text;
  if (is_one_of(word, k_line_directives)) {
    TRY_ASSIGN(Directive directive, line_directive());
    out.push_back(Statement{std::move(directive)});
    return {};
  }
  if (!is_one_of(split_dots(word).front(), k_spaces) && !is_one_of(word, k_linkages)) {
    TRY_ASSIGN(Directive directive, semicolon_directive());
    out.push_back(Statement{std::move(directive)});
    return {};
  }
  TRY_ASSIGN(Variable prototype, qualifiers());
  std::vector<Variable> variables;
  TRY(declarators(prototype, false, variables));
  TRY(expect(';', "after a declaration"));
  for (Variable& variable : variables) {
    out.push_back(Statement{std::move(variable)});
  }
  return {};
}

Expected<Instruction> Parser::instruction()
{
  Instruction instruction;
  instruction.pos = pos_of(peek());
  if (accept('@')) {
    Guard guard;
    guard.negated = accept('!');
    TRY_ASSIGN(TokenView predicate, expect_name("a predicate after '@'"));
    guard.predicate = std::string(predicate.text);
    instruction.guard = std::move(guard);
  }
  TokenView opcode = peek();
  if (!is_name(opcode) || opcode.text.front() == '%') {
    return error_at(opcode, "expected an instruction");
  }
  next();
  std::vector<std::string_view> parts = split_dots(opcode.text);
  instruction.opcode = std::string(parts.front());
  for (size_t i = 1; i < parts.size(); ++i) {
    instruction.modifiers.emplace_back(parts[i].substr(1));
  }
  if (accept(';')) {
    return instruction;
  }
  do {
    TRY_ASSIGN(Operand operand, operand());
    instruction.operands.push_back(std::move(operand));
  } while (accept(','));
  if (!accept(';')) {
    return error_at(peek(), "expected ';' after instruction '" + std::string(opcode.text) + "'");
  }
  return instruction;
}

Expected<std::vector<Operand>> Parser::operand_list(char close)
{
  std::vector<Operand> elements;
  while (!accept(close)) {
    if (!elements.empty()) {
      TRY(expect(',', "between operands"));
    }
    TRY_ASSIGN(Operand element, operand());
    elements.push_back(std::move(element));
  }
  return elements;
}

Expected<Operand> Parser::operand()
{
  TRY(check_nesting(peek()));
  Nesting nesting(m_nesting);
  TokenView token = next();
  Operand operand;
  char c = token.kind == TokenKind::punct ? token.text.front() : '\0';
  if (c == '{' || c == '[' || c == '(') {
    operand.kind = c == '{' ? OperandKind::vector
                            : (c == '[' ? OperandKind::address : OperandKind::list);
    TRY_ASSIGN(operand.elements, operand_list(c == '{' ? '}' : (c == '[' ? ']' : ')')));
    if (c == '{' && accept('|')) {
      // tex / tld4 {d..}|p: the residency predicate beside the vector destination.
      TRY_ASSIGN(TokenView second, expect_name("a predicate after '|'"));
      Operand pair;
      pair.kind = OperandKind::pair;
      pair.elements.push_back(std::move(operand));
      TRY_ASSIGN(Operand predicate, name_operand(second, false));
      pair.elements.push_back(std::move(predicate));
      return pair;
    }
    return operand;
  }
  if (c == '!') {
    if (!is_name(peek())) {
      return error_at(peek(), "expected a predicate after '!'");
    }
    TRY_ASSIGN(operand, name_operand(next()));
    operand.negated = true;
    return operand;
  }
  if (c == '-' && is_name(peek())) {
    TRY_ASSIGN(operand, name_operand(next(), false));
    operand.minus = true;
    return operand;
  }
  if (c == '-' || token.kind == TokenKind::number) {
    if (c == '-' && peek().kind != TokenKind::number) {
      return error_at(peek(), "expected a number or a register after '-'");
    }
    operand.text = c == '-' ? "-" + std::string(next().text) : std::string(token.text);
    operand.kind = is_float_spelling(operand.text) ? OperandKind::floating : OperandKind::integer;
    return operand;
  }
  if (!is_name(token)) {
    return error_at(token, "expected an operand");
  }
  return name_operand(token);
}

// A register or symbol with an optional offset (sym+4, %rd1+-8, %rd1-8) or a second predicate
// (%p1|%p2).
Expected<Operand> Parser::name_operand(const TokenView& token, bool pair_allowed)
{
  Operand operand;
  operand.text = std::string(token.text);
  operand.kind = token.text == "_" ? OperandKind::sink
                                   : (token.text.front() == '%' ? OperandKind::reg
                                                                : OperandKind::symbol);
  bool minus = at_punct('-') && peek(1).kind == TokenKind::number;
  if (minus || accept('+')) {
    bool negative = accept('-');
    if (peek().kind != TokenKind::number) {
      return error_at(peek(), "expected an offset after '" + operand.text + "+'");
    }
    operand.offset = (negative ? "-" : "") + std::string(next().text);
  }
  if (at_punct('|') && !pair_allowed) {
    return error_at(peek(), "a predicate pair holds two predicates, not more");
  }
  if (accept('|')) {
    TRY_ASSIGN(TokenView second, expect_name("a predicate after '|'"));
    Operand pair;
    pair.kind = OperandKind::pair;
    pair.elements.push_back(std::move(operand));
    TRY_ASSIGN(Operand other, name_operand(second, false));
    pair.elements.push_back(std::move(other));
    return pair;
  }
  return operand;
}

Expected<std::vector<Statement>> Parser::statements()
{
  std::vector<Statement> out;
  while (true) {
    take_comments([&](Comment comment) { out.push_back(Statement{std::move(comment)}); });
    if (peek().kind == TokenKind::end) {
      return out;
    }
    TRY(statement(out));
  }
}

} // namespace

Expected<Module> parse_module(std::string_view text)
{
  Parser parser(text);
  Expected<Module> module = parser.module();
  return parser.lex_error() ? std::unexpected(*parser.lex_error()) : std::move(module);
}

Expected<std::vector<Statement>> parse_statements(std::string_view text)
{
  Parser parser(text);
  Expected<std::vector<Statement>> statements = parser.statements();
  return parser.lex_error() ? std::unexpected(*parser.lex_error()) : std::move(statements);
}

} // namespace d4r::compiler::ptx
