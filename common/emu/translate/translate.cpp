// Source-level part of scanlab-emu-translate: a small C++ lexer (enough to tell code from comments,
// literals and preprocessor lines) and the launch / __shared__ / #include rewrites on its tokens.
// Follows the C++17 lexical grammar ([lex]) and CUDA's execution-configuration and shared-memory
// declaration syntax; the replacement texts are what the emulator runtime (::scanlab_emu) expects.
#include "translate.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

namespace scanlab::emu {

void Diagnostics::error(std::string file, int line, int column, std::string message) {
  errors.push_back({std::move(file), line, column, std::move(message)});
}

void Diagnostics::print(std::ostream& os) const {
  for (const auto& e : errors) os << e.file << ':' << e.line << ':' << e.column << ": error: " << e.message << '\n';
}

std::string Diagnostics::str() const {
  std::ostringstream os;
  print(os);
  return os.str();
}

std::string line_directive(const std::string& path) {
  std::string out = "#line 1 \"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += "\"\n";
  return out;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

enum class Kind { Ident, Number, Punct, Literal, Directive };

struct Token {
  Kind kind;
  size_t begin, end;
  bool space_before;  // whitespace or a comment separates it from the previous token
  // Directives only: the quoted name of `#include "name"` (span of the name, quotes excluded).
  bool is_quoted_include = false;
  size_t name_begin = 0, name_end = 0;
};

bool is_ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

class Lexer {
 public:
  explicit Lexer(const std::string& text) : s_(text) {}

  std::vector<Token> run() {
    std::vector<Token> toks;
    bool line_start = true;
    bool space = false;
    const size_t n = s_.size();
    size_t i = 0;
    while (i < n) {
      const char c = s_[i];
      if (c == '\n') {
        line_start = true;
        space = true;
        ++i;
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        space = true;
        ++i;
        continue;
      }
      if (c == '\\' && next_is_newline(i + 1)) {  // line splice in code
        i = skip_newline(i + 1);
        space = true;
        continue;
      }
      if (c == '/' && at(i + 1) == '*') {
        i = skip_block_comment(i);
        space = true;
        continue;
      }
      if (c == '/' && at(i + 1) == '/') {
        i = skip_line_comment(i);
        space = true;
        continue;
      }
      Token t{Kind::Punct, i, i, space};
      space = false;
      if (c == '#' && line_start) {
        t.kind = Kind::Directive;
        t.end = skip_directive(i);
        parse_include(t);
        toks.push_back(t);
        i = t.end;
        continue;  // the newline ending it sets line_start again
      }
      line_start = false;
      const auto uc = static_cast<unsigned char>(c);
      if (is_ident_start(uc)) {
        size_t j = i;
        while (j < n && is_ident_char(static_cast<unsigned char>(s_[j]))) ++j;
        const std::string word = s_.substr(i, j - i);
        if (j < n && s_[j] == '"' && (word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR")) {
          t.kind = Kind::Literal;
          t.end = skip_raw_string(j);
        } else if (j < n && (s_[j] == '"' || s_[j] == '\'') &&
                   (word == "u8" || word == "u" || word == "U" || word == "L")) {
          t.kind = Kind::Literal;
          t.end = skip_quoted(j);
        } else {
          t.kind = Kind::Ident;
          t.end = j;
        }
      } else if (std::isdigit(uc) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
        t.kind = Kind::Number;
        t.end = skip_pp_number(i);
      } else if (c == '"' || c == '\'') {
        t.kind = Kind::Literal;
        t.end = skip_quoted(i);
      } else if ((c == ':' && at(i + 1) == ':') || (c == '-' && at(i + 1) == '>')) {
        t.end = i + 2;
      } else {
        t.end = i + 1;  // `<` and `>` stay single so `<<<`, `>>>` and `>>` are runs of them
      }
      toks.push_back(t);
      i = t.end;
    }
    return toks;
  }

 private:
  const std::string& s_;

  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }
  bool next_is_newline(size_t i) const { return at(i) == '\n' || (at(i) == '\r' && at(i + 1) == '\n'); }
  size_t skip_newline(size_t i) const { return at(i) == '\r' ? i + 2 : i + 1; }

  size_t skip_block_comment(size_t i) const {
    const size_t e = s_.find("*/", i + 2);
    return e == std::string::npos ? s_.size() : e + 2;
  }

  // Up to (not including) the newline; a trailing backslash continues the comment.
  size_t skip_line_comment(size_t i) const {
    while (i < s_.size()) {
      if (s_[i] == '\\' && next_is_newline(i + 1)) {
        i = skip_newline(i + 1);
        continue;
      }
      if (s_[i] == '\n') break;
      ++i;
    }
    return i;
  }

  size_t skip_ud_suffix(size_t i) const {
    while (i < s_.size() && is_ident_char(static_cast<unsigned char>(s_[i]))) ++i;
    return i;
  }

  // "..." or '...' with escapes; an unterminated one ends at the end of its line.
  size_t skip_quoted(size_t i) const {
    const char q = s_[i++];
    while (i < s_.size()) {
      if (s_[i] == '\\') {
        i += 2;
        continue;
      }
      if (s_[i] == q) return skip_ud_suffix(i + 1);
      if (s_[i] == '\n') return i;
      ++i;
    }
    return s_.size();
  }

  // R"delim( ... )delim"; `i` is at the opening quote.
  size_t skip_raw_string(size_t i) const {
    const size_t open = s_.find('(', i + 1);
    if (open == std::string::npos) return s_.size();
    const std::string close = ")" + s_.substr(i + 1, open - i - 1) + "\"";
    const size_t e = s_.find(close, open + 1);
    return e == std::string::npos ? s_.size() : skip_ud_suffix(e + close.size());
  }

  size_t skip_pp_number(size_t i) const {
    ++i;
    while (i < s_.size()) {
      const char c = s_[i];
      if ((c == '+' || c == '-') && std::strchr("eEpP", s_[i - 1]) != nullptr) {
        ++i;
      } else if (c == '\'' && is_ident_char(static_cast<unsigned char>(at(i + 1)))) {
        i += 2;  // digit separator
      } else if (is_ident_char(static_cast<unsigned char>(c)) || c == '.') {
        ++i;
      } else {
        break;
      }
    }
    return i;
  }

  // A literal inside a directive counts only when it closes on the same line, so that
  // `#error don't` does not swallow the rest of the file.
  size_t skip_literal_on_line(size_t i) const {
    const char q = s_[i];
    size_t j = i + 1;
    while (j < s_.size() && s_[j] != '\n') {
      if (s_[j] == '\\') {
        j += 2;
        continue;
      }
      if (s_[j] == q) return j + 1;
      ++j;
    }
    return i + 1;
  }

  // From `#` to the newline that ends the logical line (not included).
  size_t skip_directive(size_t i) const {
    ++i;
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == '\\' && next_is_newline(i + 1)) {
        i = skip_newline(i + 1);
      } else if (c == '\n') {
        return (i > 0 && s_[i - 1] == '\r') ? i - 1 : i;
      } else if (c == '/' && at(i + 1) == '*') {
        i = skip_block_comment(i);
      } else if (c == '/' && at(i + 1) == '/') {
        return skip_line_comment(i);
      } else if (c == '"' || c == '\'') {
        i = skip_literal_on_line(i);
      } else {
        ++i;
      }
    }
    return s_.size();
  }

  void parse_include(Token& t) const {
    size_t i = t.begin + 1;
    auto skip_blanks = [&] {
      while (i < t.end && (s_[i] == ' ' || s_[i] == '\t')) ++i;
    };
    skip_blanks();
    static const std::string kw = "include";
    if (s_.compare(i, kw.size(), kw) != 0) return;
    i += kw.size();
    if (i < t.end && is_ident_char(static_cast<unsigned char>(s_[i]))) return;  // include_next
    skip_blanks();
    if (i >= t.end || s_[i] != '"') return;
    const size_t close = s_.find('"', i + 1);
    if (close == std::string::npos || close >= t.end) return;
    if (s_.find('\n', i) < close) return;
    t.is_quoted_include = true;
    t.name_begin = i + 1;
    t.name_end = close;
  }
};

// ---------------------------------------------------------------------------------------------
// Rewriter
// ---------------------------------------------------------------------------------------------

struct Edit {
  size_t begin, end;
  // Builds the replacement; `render(b, e)` gives text[b, e) with the edits nested inside it applied.
  std::function<std::string(const std::function<std::string(size_t, size_t)>& render)> build;
};

enum class Scope { Namespace, Class, Function };

size_t count_newlines(const std::string& s, size_t b, size_t e) {
  return static_cast<size_t>(
      std::count(s.begin() + static_cast<std::ptrdiff_t>(b), s.begin() + static_cast<std::ptrdiff_t>(e), '\n'));
}

// Keywords that cannot end the expression in front of `<<<` (so `return (f)<<<...` keeps `return`).
const std::set<std::string>& expression_stoppers() {
  static const std::set<std::string> k = {"return",
                                          "else",
                                          "do",
                                          "case",
                                          "default",
                                          "throw",
                                          "new",
                                          "delete",
                                          "co_return",
                                          "co_yield",
                                          "co_await",
                                          "sizeof",
                                          "alignof",
                                          "decltype",
                                          "typeid",
                                          "noexcept",
                                          "if",
                                          "while",
                                          "for",
                                          "switch",
                                          "goto",
                                          "and",
                                          "or",
                                          "not",
                                          "xor",
                                          "bitand",
                                          "bitor",
                                          "compl",
                                          "static_cast",
                                          "const_cast",
                                          "reinterpret_cast",
                                          "dynamic_cast",
                                          "operator"};
  return k;
}

class Translator {
 public:
  Translator(const std::string& text, const TranslateOptions& opt, Diagnostics& diag)
      : s_(text), opt_(opt), diag_(diag) {
    for (size_t i = 0; i < s_.size(); ++i)
      if (s_[i] == '\n') line_starts_.push_back(i + 1);
  }

  std::string run() {
    t_ = Lexer(s_).run();
    scan();
    std::sort(edits_.begin(), edits_.end(), [](const Edit& a, const Edit& b) {
      return a.begin < b.begin;
    });
    return render(0, s_.size());
  }

 private:
  const std::string& s_;
  const TranslateOptions& opt_;
  Diagnostics& diag_;
  std::vector<Token> t_;
  std::vector<size_t> line_starts_{0};
  std::vector<Edit> edits_;

  // --- helpers ---
  std::pair<int, int> line_col(size_t pos) const {
    const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pos);
    const size_t ls = *(it - 1);
    return {static_cast<int>(it - line_starts_.begin()), static_cast<int>(pos - ls + 1)};
  }
  void error_at(size_t pos, const std::string& msg) {
    const auto [l, c] = line_col(pos);
    diag_.error(opt_.file_name, l, c, msg);
  }
  std::string text(size_t i) const { return s_.substr(t_[i].begin, t_[i].end - t_[i].begin); }
  bool is(size_t i, const char* p) const {
    return i < t_.size() && t_[i].kind != Kind::Directive && t_[i].kind != Kind::Literal &&
           t_[i].end - t_[i].begin == std::strlen(p) && s_.compare(t_[i].begin, t_[i].end - t_[i].begin, p) == 0;
  }
  bool is_ident(size_t i) const { return i < t_.size() && t_[i].kind == Kind::Ident; }
  bool adjacent(size_t a, size_t b) const { return t_[a].end == t_[b].begin; }

  // Tokens joined as written, one space wherever the source had whitespace, a comment or a
  // dropped token between them (so newlines and comments disappear).
  std::string join(const std::vector<size_t>& idx) const {
    std::string out;
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k > 0 && (t_[idx[k]].space_before || idx[k] != idx[k - 1] + 1)) out += ' ';
      out += text(idx[k]);
    }
    return out;
  }
  std::string join_range(size_t b, size_t e) const {
    std::vector<size_t> idx;
    for (size_t i = b; i < e; ++i) idx.push_back(i);
    return join(idx);
  }

  // Index of the bracket closing the one at `i` (`(`, `[` or `{`, nesting all three), or npos.
  size_t match_forward(size_t i) const {
    std::vector<char> stack;
    for (size_t j = i; j < t_.size(); ++j) {
      if (t_[j].kind != Kind::Punct) continue;
      const char c = s_[t_[j].begin];
      if (c == '(' || c == '[' || c == '{') {
        stack.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
      } else if (c == ')' || c == ']' || c == '}') {
        if (stack.empty() || stack.back() != c) return std::string::npos;
        stack.pop_back();
        if (stack.empty()) return j;
      }
    }
    return std::string::npos;
  }

  size_t match_backward(size_t i) const {
    std::vector<char> stack;
    for (size_t j = i + 1; j-- > 0;) {
      if (t_[j].kind != Kind::Punct) continue;
      const char c = s_[t_[j].begin];
      if (c == ')' || c == ']' || c == '}') {
        stack.push_back(c == ')' ? '(' : c == ']' ? '[' : '{');
      } else if (c == '(' || c == '[' || c == '{') {
        if (stack.empty() || stack.back() != c) return std::string::npos;
        stack.pop_back();
        if (stack.empty()) return j;
      }
    }
    return std::string::npos;
  }

  // `<` matching the template-argument-list closer `>` at `i` (`>>` counts as two closers).
  size_t match_angle_backward(size_t i) const {
    int depth = 0;
    for (size_t j = i + 1; j-- > 0;) {
      if (t_[j].kind == Kind::Directive) return std::string::npos;
      if (is(j, ")") || is(j, "]")) {
        j = match_backward(j);
        if (j == std::string::npos) return j;
        continue;
      }
      if (is(j, ";") || is(j, "{") || is(j, "}") || is(j, "(") || is(j, "[")) return std::string::npos;
      if (is(j, ">")) ++depth;
      if (is(j, "<") && --depth == 0) return j;
    }
    return std::string::npos;
  }

  std::string render(size_t b, size_t e) const {
    std::string out;
    size_t pos = b;
    for (const Edit& ed : edits_) {
      if (ed.begin < pos || ed.end > e) continue;  // before, nested in one already taken, or after
      out.append(s_, pos, ed.begin - pos);
      out += ed.build([this](size_t x, size_t y) {
        return render(x, y);
      });
      pos = ed.end;
    }
    out.append(s_, pos, e - pos);
    return out;
  }

  // --- the scan over all tokens: scopes, launches, __shared__, #include ---
  void scan() {
    std::vector<Scope> scopes;
    size_t head = 0;  // first token after the last `;`, `{` or `}`
    for (size_t i = 0; i < t_.size(); ++i) {
      const Token& tk = t_[i];
      if (tk.kind == Kind::Directive) {
        if (tk.is_quoted_include) include_edit(tk);
        continue;
      }
      if (is(i, ";")) {
        head = i + 1;
      } else if (is(i, "{")) {
        scopes.push_back(classify_head(head, i));
        head = i + 1;
      } else if (is(i, "}")) {
        if (!scopes.empty()) scopes.pop_back();
        head = i + 1;
      } else if (is(i, "<") && is(i + 1, "<") && is(i + 2, "<") && adjacent(i, i + 1) && adjacent(i + 1, i + 2)) {
        if (i > 0 && is(i - 1, "operator")) {  // operator<< <T>
          i += 1;
          continue;
        }
        launch_edit(i);
        i += 2;
      } else if (is(i, "__shared__")) {
        const Scope sc = scopes.empty() ? Scope::Namespace : scopes.back();
        const size_t semi = shared_edit(i, head, sc);
        if (semi != std::string::npos) {
          i = semi;
          head = semi + 1;
        }
      }
    }
  }

  Scope classify_head(size_t b, size_t e) const {
    bool paren = false, ns = false, extern_c = false, cls = false;
    for (size_t i = b; i < e; ++i) {
      if (t_[i].kind == Kind::Directive) continue;
      if (is(i, "(")) paren = true;
      if (is(i, "namespace")) ns = true;
      if (is(i, "extern") && i + 1 < e && t_[i + 1].kind == Kind::Literal) extern_c = true;
      if (is(i, "struct") || is(i, "class") || is(i, "union")) cls = true;
    }
    if (ns) return Scope::Namespace;
    if (extern_c && !paren) return Scope::Namespace;  // `extern "C" {`, not `extern "C" void f() {`
    if (cls && !paren) return Scope::Class;
    return Scope::Function;
  }

  void include_edit(const Token& tk) {
    if (!opt_.rewrite_include) return;
    const std::string name = s_.substr(tk.name_begin, tk.name_end - tk.name_begin);
    const auto repl = opt_.rewrite_include(name);
    if (!repl) return;
    std::string r = *repl;
    edits_.push_back({tk.name_begin, tk.name_end, [r](const auto&) {
                        return r;
                      }});
  }

  // ---- kernel launches ----

  // First token of the kernel expression ending at `i` (the token before `<<<`), or npos.
  size_t launch_expression_start(size_t i) const {
    const auto& stop = expression_stoppers();
    auto unit_end = [&](size_t j) {
      return (is_ident(j) && stop.count(text(j)) == 0) || is(j, ")") || is(j, "]") || is(j, ">");
    };
    if (!unit_end(i)) return std::string::npos;
    while (true) {
      size_t s;
      if (is(i, ">")) {
        const size_t lt = match_angle_backward(i);
        if (lt == std::string::npos || lt == 0 || !is_ident(lt - 1)) return std::string::npos;
        s = lt - 1;
      } else if (is(i, ")") || is(i, "]")) {
        s = match_backward(i);
        if (s == std::string::npos) return s;
        if (s > 0 && unit_end(s - 1)) {  // postfix call or subscript: f(x)<<<, table[k]<<<
          i = s - 1;
          continue;
        }
      } else {
        s = i;
      }
      if (s > 0 && is(s - 1, "template")) --s;
      if (s > 0 && (is(s - 1, "::") || is(s - 1, ".") || is(s - 1, "->"))) {
        if (s >= 2 && (unit_end(s - 2) || is(s - 2, "template"))) {
          i = s - 2;
          if (is(i, "template")) return std::string::npos;  // `template ::x` is not an expression
          continue;
        }
        if (is(s - 1, "::")) return s - 1;  // ::kernel<<<
        return std::string::npos;
      }
      return s;
    }
  }

  void launch_edit(size_t lt) {
    const size_t pos = t_[lt].begin;
    if (lt == 0) {
      error_at(pos, "expected a kernel name before '<<<'");
      return;
    }
    const size_t first = launch_expression_start(lt - 1);
    if (first == std::string::npos) {
      error_at(pos, "cannot find the kernel expression before '<<<'");
      return;
    }
    // The matching `>>>`: a run of >= 3 adjacent `>` at bracket depth 0 (its last three).
    int depth = 0;
    size_t gt = std::string::npos;
    for (size_t j = lt + 3; j < t_.size(); ++j) {
      if (t_[j].kind == Kind::Directive) continue;
      if (is(j, "(") || is(j, "[") || is(j, "{")) {
        ++depth;
      } else if (is(j, ")") || is(j, "]") || is(j, "}")) {
        if (--depth < 0) break;
      } else if (depth == 0 && is(j, ";")) {
        break;
      } else if (depth == 0 && is(j, ">")) {
        size_t k = j;
        while (k + 1 < t_.size() && is(k + 1, ">") && adjacent(k, k + 1)) ++k;
        if (k - j + 1 >= 3) {
          gt = k - 2;
          break;
        }
        j = k;
      }
    }
    if (gt == std::string::npos) {
      error_at(pos, "unbalanced '<<<': no matching '>>>'");
      return;
    }
    const size_t open = gt + 3;
    if (open >= t_.size() || !is(open, "(")) {
      error_at(open < t_.size() ? t_[open].begin : t_[gt].begin, "expected '(' with the kernel arguments after '>>>'");
      return;
    }
    const size_t close = match_forward(open);
    if (close == std::string::npos) {
      error_at(t_[open].begin, "unbalanced '(' in the kernel arguments after '>>>'");
      return;
    }

    const std::string expr = join_range(first, lt);
    std::string quoted;
    for (char c : expr) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    const size_t nl_before = count_newlines(s_, t_[first].begin, t_[lt].begin);
    const size_t nl_gap = count_newlines(s_, t_[gt + 2].end, t_[open].begin);
    const size_t cfg_b = t_[lt + 2].end, cfg_e = t_[gt].begin;
    const size_t args_b = t_[open].end, args_e = t_[close].begin;
    const bool no_args = close == open + 1;
    const std::string& s = s_;
    edits_.push_back({t_[first].begin, t_[close].end, [=, &s](const auto& render) {
                        std::string out(nl_before, '\n');
                        out += "::scanlab_emu::launch(::scanlab_emu::launch_config(";
                        out += render(cfg_b, cfg_e);
                        out += "), \"" + quoted + "\", __FILE__, __LINE__, ";
                        out += "[&](auto&... scanlab_arg_) { " + expr + "(scanlab_arg_...); }";
                        out += std::string(nl_gap, '\n');
                        if (no_args) {
                          out += std::string(count_newlines(s, args_b, args_e), '\n');
                        } else {
                          out += ", " + render(args_b, args_e);
                        }
                        out += ")";
                        return out;
                      }});
  }

  // ---- __shared__ declarations ----

  struct Declarator {
    std::string type;  // full type before the name (base type + this declarator's `*`/`&`)
    std::string name;
    std::string dims;  // "[a][b]" or ""
    size_t name_tok;
    size_t seg_begin, seg_end;  // source span it replaces (for the newline count)
  };

  // Rewrites the declaration containing the `__shared__` at `k`; returns the index of its `;`
  // (npos after an error that stops the parse).
  size_t shared_edit(size_t k, size_t head, Scope scope) {
    const size_t shared_pos = t_[k].begin;
    if (scope == Scope::Class) {
      error_at(shared_pos, "__shared__ member declarations are not supported by the emulator");
      return std::string::npos;
    }
    // Start: after the last directive or label colon between the statement head and `__shared__`.
    size_t start = head;
    for (size_t j = head; j < k; ++j) {
      if (t_[j].kind == Kind::Directive || is(j, ":")) start = j + 1;
      if (is(j, "(") || is(j, "[")) {
        const size_t m = match_forward(j);
        if (m == std::string::npos || m > k) break;
        j = m;
      }
    }
    // End: the `;` at bracket depth 0.
    size_t semi = std::string::npos;
    for (size_t j = k + 1; j < t_.size(); ++j) {
      if (t_[j].kind == Kind::Directive) continue;
      if (is(j, "(") || is(j, "[")) {
        j = match_forward(j);
        if (j == std::string::npos) break;
        continue;
      }
      if (is(j, ";")) {
        semi = j;
        break;
      }
      if (is(j, "{") || is(j, "}") || is(j, ")") || is(j, "]")) break;
    }
    if (semi == std::string::npos) {
      error_at(shared_pos, "cannot parse this __shared__ declaration: expected ';'");
      return std::string::npos;
    }

    // Specifiers, type and the first declarator's name.
    bool is_extern = false;
    std::string align;
    std::vector<size_t> type_toks;
    int angle = 0;
    size_t j = start;
    auto fail = [&](size_t at, const std::string& why) {
      error_at(t_[std::min(at, semi)].begin, "cannot parse this __shared__ declaration: " + why);
      return semi;
    };
    for (; j < semi; ++j) {
      if (t_[j].kind == Kind::Directive) return fail(j, "preprocessor line inside it");
      if (angle == 0 && (is(j, "[") || is(j, ",") || is(j, "=") || is(j, "{"))) break;
      if (is(j, "__shared__") || is(j, "static") || is(j, "__device__")) continue;
      if (is(j, "extern")) {
        is_extern = true;
        continue;
      }
      if (is(j, "__align__") || is(j, "alignas")) {
        const size_t m = is(j + 1, "(") ? match_forward(j + 1) : std::string::npos;
        if (m == std::string::npos || m > semi) return fail(j, "expected '(' after " + text(j));
        align = join_range(j + 2, m);
        j = m;
        continue;
      }
      if (is(j, "<")) ++angle;
      if (is(j, ">")) --angle;
      if (is(j, "(")) {
        const bool ok = !type_toks.empty() && is(type_toks.back(), "decltype");
        const size_t m = match_forward(j);
        if (!ok || m == std::string::npos || m > semi) return fail(j, "unexpected '('");
        for (size_t x = j; x <= m; ++x) type_toks.push_back(x);
        j = m;
        continue;
      }
      type_toks.push_back(j);
    }
    if (type_toks.size() < 2 || !is_ident(type_toks.back())) return fail(j, "expected a type and a variable name");
    if (j < semi && (is(j, "=") || is(j, "{"))) return fail(j, "__shared__ variables cannot have an initializer");

    const size_t name0 = type_toks.back();
    type_toks.pop_back();
    // Split the type into the shared base and the first declarator's pointer part.
    size_t split = type_toks.size();
    {
      int a = 0;
      for (size_t x = 0; x < type_toks.size(); ++x) {
        const size_t tk = type_toks[x];
        if (is(tk, "<")) ++a;
        if (is(tk, ">")) --a;
        if (a == 0 && (is(tk, "*") || is(tk, "&"))) {
          split = x;
          break;
        }
      }
    }
    const std::vector<size_t> base_toks(type_toks.begin(), type_toks.begin() + static_cast<std::ptrdiff_t>(split));
    if (base_toks.empty()) return fail(name0, "expected a type");
    const std::string base = join(base_toks);

    std::vector<Declarator> decls;
    Declarator d{join(type_toks), text(name0), "", name0, t_[start].begin, 0};
    while (true) {
      while (j < semi && is(j, "[")) {
        const size_t m = match_forward(j);
        if (m == std::string::npos || m > semi) return fail(j, "unbalanced '['");
        d.dims += "[" + join_range(j + 1, m) + "]";
        j = m + 1;
      }
      if (j < semi && (is(j, "=") || is(j, "{"))) return fail(j, "__shared__ variables cannot have an initializer");
      if (j < semi && !is(j, ",")) return fail(j, "unexpected '" + text(j) + "'");
      d.seg_end = j < semi ? t_[j].begin : t_[semi].end;
      decls.push_back(d);
      if (j >= semi) break;
      // next declarator: [ptr-ops] name
      const size_t comma = j++;
      std::vector<size_t> ptr;
      while (j < semi && !is(j, "[") && !is(j, ",") && !is(j, "=") && !is(j, "{")) ptr.push_back(j++);
      if (ptr.empty() || !is_ident(ptr.back())) return fail(j, "expected a variable name");
      const size_t nm = ptr.back();
      ptr.pop_back();
      d = Declarator{ptr.empty() ? base : base + " " + join(ptr), text(nm), "", nm, t_[comma + 1].begin, 0};
    }

    const size_t span_b = t_[start].begin, span_e = t_[semi].end;
    std::string out;
    if (is_extern) {
      if (decls.size() != 1 || decls[0].dims != "[]")
        return fail(decls[0].name_tok, "extern __shared__ must declare one unsized array 'T name[]'");
      const Declarator& e = decls[0];
      const std::string al = align_expr("alignof(" + e.type + ")", align);
      if (scope == Scope::Namespace) {
        out = "static ::scanlab_emu::DynamicShared<" + e.type + "> " + e.name + "(\"" + e.name + "\", " + al + ");";
      } else {
        out = e.type + "* const " + e.name + " = static_cast<" + e.type + "*>(::scanlab_emu::dynamic_shared(" + al +
              ", \"" + e.name + "\"));";
      }
      out += std::string(count_newlines(s_, span_b, span_e), '\n');
    } else {
      if (scope == Scope::Namespace) {
        error_at(shared_pos, "__shared__ variables at namespace scope are not supported by the emulator; "
                             "declare it inside the kernel");
        return semi;
      }
      for (size_t x = 0; x < decls.size(); ++x) {
        const Declarator& e = decls[x];
        const auto [l, c] = line_col(t_[e.name_tok].begin);
        const std::string key = "scanlab_shared_key_" + std::to_string(l) + "_" + std::to_string(c) + "_";
        const std::string td = e.type + " " + e.dims;
        if (x > 0 && out.back() != '\n') out += ' ';
        out += "static char " + key + "; auto& " + e.name + " = *static_cast<" + e.type + "(*)" + e.dims +
               ">(::scanlab_emu::static_shared(&" + key + ", sizeof(" + td + "), " +
               align_expr("alignof(" + td + ")", align) + ", \"" + e.name + "\"));";
        const size_t seg_e = x + 1 < decls.size() ? decls[x + 1].seg_begin : span_e;
        out += std::string(count_newlines(s_, e.seg_begin, seg_e), '\n');
      }
    }
    edits_.push_back({span_b, span_e, [out](const auto&) {
                        return out;
                      }});
    return semi;
  }

  static std::string align_expr(const std::string& natural, const std::string& requested) {
    if (requested.empty()) return natural;
    return "(" + natural + " > (" + requested + ") ? " + natural + " : (" + requested + "))";
  }
};

}  // namespace

std::string translate_source(const std::string& text, const TranslateOptions& options, Diagnostics& diag) {
  return Translator(text, options, diag).run();
}

std::vector<std::string> find_quoted_includes(const std::string& text) {
  std::vector<std::string> names;
  for (const Token& t : Lexer(text).run())
    if (t.kind == Kind::Directive && t.is_quoted_include)
      names.push_back(text.substr(t.name_begin, t.name_end - t.name_begin));
  return names;
}

}  // namespace scanlab::emu
