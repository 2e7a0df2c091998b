// Golden-string tests of scanlab-emu-translate's source rewrites (common/emu/translate): each rewrite,
// the lexical traps around it (comments, strings, raw strings, directives), the newline-count
// invariant and the error messages with their line:column.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "translate.hpp"

using scanlab::emu::Diagnostics;
using scanlab::emu::TranslateOptions;
using scanlab::emu::translate_source;

namespace {

long newlines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

// Translates `src`, requires no error and the same number of lines.
std::string tr(const std::string& src) {
  Diagnostics diag;
  TranslateOptions opt;
  opt.file_name = "t.cu";
  const std::string out = translate_source(src, opt, diag);
  INFO("diagnostics: " << diag.str());
  CHECK(diag.ok());
  CHECK(newlines(out) == newlines(src));
  return out;
}

// Translates `src` that must fail; returns the diagnostics text.
std::string tr_error(const std::string& src) {
  Diagnostics diag;
  TranslateOptions opt;
  opt.file_name = "t.cu";
  (void)translate_source(src, opt, diag);
  CHECK_FALSE(diag.ok());
  return diag.str();
}

std::string launch(const std::string& cfg, const std::string& expr, const std::string& args,
                   const std::string& quoted_expr = "") {
  return "::scanlab_emu::launch(::scanlab_emu::launch_config(" + cfg + "), \"" +
         (quoted_expr.empty() ? expr : quoted_expr) + "\", __FILE__, __LINE__, [&](auto&... scanlab_arg_) { " + expr +
         "(scanlab_arg_...); }" + (args.empty() ? "" : ", " + args) + ")";
}

}  // namespace

TEST_CASE("launch: plain, with arguments") {
  CHECK(tr("  scan<<<blocks, 256>>>(d_in, d_out, n);\n") ==
        "  ::scanlab_emu::launch(::scanlab_emu::launch_config(blocks, 256), \"scan\", __FILE__, "
        "__LINE__, [&](auto&... scanlab_arg_) { scan(scanlab_arg_...); }, d_in, d_out, n);\n");
}

TEST_CASE("launch: no arguments means no comma") {
  CHECK(tr("k<<<1, 1>>>();") == launch("1, 1", "k", "") + ";");
  CHECK(tr("k<<<1, 1>>>(  );") == launch("1, 1", "k", "") + ";");
  // the newline inside the empty list survives
  CHECK(tr("k<<<1, 1>>>(\n);") ==
        "::scanlab_emu::launch(::scanlab_emu::launch_config(1, 1), \"k\", __FILE__, __LINE__, "
        "[&](auto&... scanlab_arg_) { k(scanlab_arg_...); }\n);");
}

TEST_CASE("launch: nested template arguments, >> as two closers, four-part configuration") {
  CHECK(tr("k<A<int>><<<g, b, 0, s>>>(x);") == launch("g, b, 0, s", "k<A<int>>", "x") + ";");
  CHECK(tr("scan_kernel<Plus<float>, 256, B<C<D>>><<<g, 256>>>(x, y);") ==
        launch("g, 256", "scan_kernel<Plus<float>, 256, B<C<D>>>", "x, y") + ";");
  // a parenthesised comparison inside the template arguments
  CHECK(tr("k<(N > 2)><<<1, 1>>>(x);") == launch("1, 1", "k<(N > 2)>", "x") + ";");
}

TEST_CASE("launch: qualified, member, template-keyword and postfix kernel expressions") {
  CHECK(tr("ns::k<<<1, 2>>>(x);") == launch("1, 2", "ns::k", "x") + ";");
  CHECK(tr("::k<<<1, 2>>>(x);") == launch("1, 2", "::k", "x") + ";");
  CHECK(tr("obj.template k<int><<<1, 2>>>(x);") == launch("1, 2", "obj.template k<int>", "x") + ";");
  CHECK(tr("Traits<T>::template kernel<T><<<1, 2>>>(x);") ==
        launch("1, 2", "Traits<T>::template kernel<T>", "x") + ";");
  CHECK(tr("p->k<<<1, 2>>>(x);") == launch("1, 2", "p->k", "x") + ";");
  CHECK(tr("table[i]<<<1, 2>>>(x);") == launch("1, 2", "table[i]", "x") + ";");
  CHECK(tr("pick(mode)<<<1, 2>>>(x);") == launch("1, 2", "pick(mode)", "x") + ";");
  CHECK(tr("if (n) k<<<1, 2>>>(x);") == "if (n) " + launch("1, 2", "k", "x") + ";");
  CHECK(tr("else k<<<1, 2>>>(x);") == "else " + launch("1, 2", "k", "x") + ";");
  CHECK(tr("return (kp)<<<1, 2>>>(x);") == "return " + launch("1, 2", "(kp)", "x") + ";");
}

TEST_CASE("launch: configuration expressions with parentheses, templates and operators") {
  CHECK(tr("k<<<dim3(gx, gy), dim3(32, 8)>>>(x);") == launch("dim3(gx, gy), dim3(32, 8)", "k", "x") + ";");
  CHECK(tr("k<<<n / 256 + 1, 256, sizeof(T) * 256>>>(x);") ==
        launch("n / 256 + 1, 256, sizeof(T) * 256", "k", "x") + ";");
  CHECK(tr("k<<<grid, std::min<int>(n, 1024), sizeof(std::pair<int, int>)>>>(x);") ==
        launch("grid, std::min<int>(n, 1024), sizeof(std::pair<int, int>)", "k", "x") + ";");
  CHECK(tr("k<<<(n >> 8) + 1, 256>>>(x);") == launch("(n >> 8) + 1, 256", "k", "x") + ";");
}

TEST_CASE("launch: whitespace and newlines around >>> and inside the lists are kept") {
  const std::string src = "k<<<dim3(a,\n     b), n / 256 + 1>>>   \n     (x,\n y);\nnext();\n";
  const std::string out = tr(src);
  CHECK(out == "::scanlab_emu::launch(::scanlab_emu::launch_config(dim3(a,\n     b), n / 256 + 1), "
               "\"k\", __FILE__, __LINE__, [&](auto&... scanlab_arg_) { k(scanlab_arg_...); }\n"
               ", x,\n y);\nnext();\n");
  // `next();` is still on line 5
  CHECK(out.substr(out.rfind('\n', out.size() - 2) + 1) == "next();\n");
}

TEST_CASE("launch: kernel expression text has whitespace collapsed and quotes escaped") {
  CHECK(tr("k< A<int> ,\n 3 ><<<1, 1>>>(x);") == "\n" + launch("1, 1", "k< A<int> , 3 >", "x") + ";");
  CHECK(tr("kernels[\"a\"]<<<1, 1>>>();") == launch("1, 1", "kernels[\"a\"]", "", "kernels[\\\"a\\\"]") + ";");
}

TEST_CASE("launch: inside a macro argument and nested in another launch's arguments") {
  CHECK(tr("CHECK((k<<<1,1>>>(x), cudaGetLastError()));") ==
        "CHECK((" + launch("1,1", "k", "x") + ", cudaGetLastError()));");
  CHECK(tr("outer<<<1, 1>>>(inner<<<2, 2>>>(y), z);") ==
        launch("1, 1", "outer", launch("2, 2", "inner", "y") + ", z") + ";");
  // a launch inside a lambda argument of a launch
  CHECK(tr("a<<<1, 1>>>([&] { b<<<2, 2>>>(q); });") ==
        launch("1, 1", "a", "[&] { " + launch("2, 2", "b", "q") + "; }") + ";");
}

TEST_CASE("launch: comments, strings, char literals, raw strings and directives are left alone") {
  const std::string src = "// k<<<1,1>>>(x); __shared__ int a[3];\n"
                          "/* k<<<1,1>>>(x);\n   __shared__ int b[3]; */\n"
                          "const char* s = \"k<<<1,1>>>(x) \\\" __shared__ int c;\";\n"
                          "char c = '<'; char d = '\\'';\n"
                          "const char* r = R\"d(k<<<1,1>>>(x) \" __shared__ int e; )\" )d\";\n"
                          "const char* u = u8R\"(<<<)\";\n"
                          "#define LAUNCH(k) k<<<1, 1>>>()\n"
                          "#define SH __shared__ int f[2]; \\\n   k<<<1,1>>>(x)\n"
                          "#error it's k<<<\n"
                          "#define A 1 /* a comment that spans\n   lines */ + k<<<1, 1>>>(x)\n"
                          "// a line comment continued \\\n   k<<<1, 1>>>(x); __shared__ int g;\n"
                          "int v = 1'000'000;\n";
  CHECK(tr(src) == src);
}

TEST_CASE("launch: code after the traps is still rewritten") {
  const std::string src = "const char* r = R\"(\")\"; char q = '\"'; // \"\nk<<<1, 1>>>(x);";
  CHECK(tr(src) == "const char* r = R\"(\")\"; char q = '\"'; // \"\n" + launch("1, 1", "k", "x") + ";");
}

TEST_CASE("launch: operator<< <T> and stray >>> of nested templates are not launches") {
  const std::string src = "template <class T> std::ostream& operator<<<T>(std::ostream&, const V<T>&);\n"
                          "std::vector<std::vector<std::vector<int>>> v;\n";
  CHECK(tr(src) == src);
}

TEST_CASE("shared: arrays, scalars and several declarators") {
  CHECK(tr("{ __shared__ float tile[256]; }") ==
        "{ static char scanlab_shared_key_1_20_; auto& tile = *static_cast<float(*)[256]>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_1_20_, sizeof(float [256]), "
        "alignof(float [256]), \"tile\")); }");
  CHECK(tr("void f() {\n  __shared__ int count;\n}") ==
        "void f() {\n  static char scanlab_shared_key_2_18_; auto& count = *static_cast<int(*)>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_2_18_, sizeof(int ), alignof(int ), "
        "\"count\"));\n}");
  CHECK(tr("void f() { __shared__ int a[32], b[2][64]; }") ==
        "void f() { static char scanlab_shared_key_1_27_; auto& a = *static_cast<int(*)[32]>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_1_27_, sizeof(int [32]), "
        "alignof(int [32]), \"a\")); static char scanlab_shared_key_1_34_; auto& b = "
        "*static_cast<int(*)[2][64]>(::scanlab_emu::static_shared(&scanlab_shared_key_1_34_, "
        "sizeof(int [2][64]), alignof(int [2][64]), \"b\")); }");
}

TEST_CASE("shared: declarators over several lines keep their lines") {
  const std::string out = tr("void f() {\n  __shared__ int a[32],\n                 b[64];\n  g();\n}");
  // a stays on line 2, b moves to line 3 and is keyed by its own line:col
  CHECK(out == "void f() {\n  static char scanlab_shared_key_2_18_; auto& a = *static_cast<int(*)[32]>("
               "::scanlab_emu::static_shared(&scanlab_shared_key_2_18_, sizeof(int [32]), alignof(int [32]), "
               "\"a\"));\nstatic char scanlab_shared_key_3_18_; auto& b = *static_cast<int(*)[64]>("
               "::scanlab_emu::static_shared(&scanlab_shared_key_3_18_, sizeof(int [64]), alignof(int [64]), "
               "\"b\"));\n  g();\n}");
}

TEST_CASE("shared: pointer declarators take the base type") {
  CHECK(tr("void f() { __shared__ int a[4], *p; }") ==
        "void f() { static char scanlab_shared_key_1_27_; auto& a = *static_cast<int(*)[4]>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_1_27_, sizeof(int [4]), alignof(int [4]), "
        "\"a\")); static char scanlab_shared_key_1_34_; auto& p = *static_cast<int *(*)>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_1_34_, sizeof(int * ), alignof(int * ), "
        "\"p\")); }");
}

TEST_CASE("shared: __align__, alignas, volatile, typename, long types, templates, static") {
  const std::string al16 = "(alignof(volatile float [8]) > (16) ? alignof(volatile float [8]) : (16))";
  CHECK(tr("void f() { __shared__ __align__(16) volatile float x[8]; }") ==
        "void f() { static char scanlab_shared_key_1_52_; auto& x = *static_cast<volatile float(*)[8]>("
        "::scanlab_emu::static_shared(&scanlab_shared_key_1_52_, sizeof(volatile float [8]), " +
            al16 + ", \"x\")); }");
  // alignas after the type, static before or after __shared__: same result
  for (const std::string decl :
       {"alignas(16) __shared__ static volatile float x[8];", "static __shared__ volatile float alignas(16) x[8];"}) {
    const std::string out = tr("void f() { " + decl + " }");
    CHECK(out.find("auto& x = *static_cast<volatile float(*)[8]>(") != std::string::npos);
    CHECK(out.find(al16) != std::string::npos);
    CHECK(out.find("static __shared__") == std::string::npos);
  }
  CHECK(tr("void f() { __shared__ unsigned long long s[2 * BLOCK]; }")
            .find("static_cast<unsigned long long(*)[2 * BLOCK]>(::scanlab_emu::static_shared(&scanlab_"
                  "shared_key_1_42_, sizeof(unsigned long long [2 * BLOCK]), alignof(unsigned long long "
                  "[2 * BLOCK]), \"s\"))") != std::string::npos);
  CHECK(tr("template <class Op> __device__ void f() { __shared__ typename Op::value_type v[32]; }")
            .find("auto& v = *static_cast<typename Op::value_type(*)[32]>(") != std::string::npos);
  CHECK(tr("void f() { __shared__ Affine<std::pair<int, int>> ab[4], c; }")
            .find("auto& c = *static_cast<Affine<std::pair<int, int>>(*)>(") != std::string::npos);
}

TEST_CASE("shared: scope tracking (lambdas, nested blocks, member functions, extern \"C\" kernels)") {
  const std::string key = "auto& s = *static_cast<int(*)[4]>(";
  CHECK(tr("void f() { if (x) { for (;;) { __shared__ int s[4]; } } }").find(key) != std::string::npos);
  CHECK(tr("auto l = [] { __shared__ int s[4]; };").find(key) != std::string::npos);
  CHECK(tr("struct S { __device__ void m() { __shared__ int s[4]; } };").find(key) != std::string::npos);
  CHECK(tr("extern \"C\" __global__ void k() { __shared__ int s[4]; }").find(key) != std::string::npos);
  CHECK(tr("namespace a { namespace b { template <class T> __global__ void k(T* p) {\n"
           "  __shared__ int s[4]; } } }")
            .find(key) != std::string::npos);
}

TEST_CASE("dynamic shared: inside a function and at namespace scope") {
  CHECK(tr("__global__ void k() { extern __shared__ float smem[]; }") ==
        "__global__ void k() { float* const smem = static_cast<float*>("
        "::scanlab_emu::dynamic_shared(alignof(float), \"smem\")); }");
  CHECK(tr("void k() { extern __shared__ __align__(8) unsigned char raw[]; }") ==
        "void k() { unsigned char* const raw = static_cast<unsigned char*>("
        "::scanlab_emu::dynamic_shared((alignof(unsigned char) > (8) ? alignof(unsigned char) : "
        "(8)), \"raw\")); }");
  CHECK(tr("extern __shared__ int dyn[];\n") ==
        "static ::scanlab_emu::DynamicShared<int> dyn(\"dyn\", alignof(int));\n");
  CHECK(tr("namespace s { extern __shared__ alignas(16) T data[]; }") ==
        "namespace s { static ::scanlab_emu::DynamicShared<T> data(\"data\", "
        "(alignof(T) > (16) ? alignof(T) : (16))); }");
  CHECK(tr("extern \"C\" {\nextern __shared__ int d2[\n];\n}") ==
        "extern \"C\" {\nstatic ::scanlab_emu::DynamicShared<int> d2(\"d2\", alignof(int));\n\n}");
}

TEST_CASE("includes: quoted includes go through the rewriter, angle ones are left alone") {
  Diagnostics diag;
  TranslateOptions opt;
  opt.rewrite_include = [](const std::string& name) -> std::optional<std::string> {
    if (name == "known.cuh") return std::string("/abs/inc/known_1.cuh");
    return std::nullopt;
  };
  const std::string src = "#include \"known.cuh\"  // c\n#  include   \"known.cuh\"\n#include <known.cuh>\n"
                          "#include \"unknown.cuh\"\n// #include \"known.cuh\"\n#define X \"known.cuh\"\n";
  CHECK(translate_source(src, opt, diag) ==
        "#include \"/abs/inc/known_1.cuh\"  // c\n#  include   \"/abs/inc/known_1.cuh\"\n"
        "#include <known.cuh>\n#include \"unknown.cuh\"\n// #include \"known.cuh\"\n"
        "#define X \"known.cuh\"\n");
  CHECK(diag.ok());
  CHECK(scanlab::emu::find_quoted_includes(src) == std::vector<std::string>{"known.cuh", "known.cuh", "unknown.cuh"});
}

TEST_CASE("everything else is byte-identical, including CRLF line ends") {
  const std::string src = "int main() {\r\n  int x = a < b && c > d;\r\n  return x >> 2;\r\n}\r\n";
  CHECK(tr(src) == src);
  const std::string launched = tr("void f() {\r\n  k<<<1, 1>>>(x);\r\n}\r\n");
  CHECK(launched == "void f() {\r\n  " + launch("1, 1", "k", "x") + ";\r\n}\r\n");
}

TEST_CASE("errors: unbalanced launches, with line:col") {
  CHECK(tr_error("void f() {\n  k<<<1, 2(x);\n}") == "t.cu:2:4: error: unbalanced '<<<': no matching '>>>'\n");
  CHECK(tr_error("void f() {\n  k<<<1, 2>>> x;\n}") ==
        "t.cu:2:15: error: expected '(' with the kernel arguments after '>>>'\n");
  CHECK(tr_error("void f() {\n  k<<<1, 2>>>(x;\n}") ==
        "t.cu:2:14: error: unbalanced '(' in the kernel arguments after '>>>'\n");
  CHECK(tr_error("void f() {\n  <<<1, 2>>>(x);\n}") ==
        "t.cu:2:3: error: cannot find the kernel expression before '<<<'\n");
}

TEST_CASE("errors: __shared__ it cannot handle") {
  CHECK(tr_error("__shared__ int bad[3];") ==
        "t.cu:1:1: error: __shared__ variables at namespace scope are not supported by the "
        "emulator; declare it inside the kernel\n");
  CHECK(tr_error("namespace x {\n  static __shared__ int bad;\n}") ==
        "t.cu:2:10: error: __shared__ variables at namespace scope are not supported by the "
        "emulator; declare it inside the kernel\n");
  CHECK(tr_error("void f() {\n  __shared__ int z = 3;\n}") ==
        "t.cu:2:20: error: cannot parse this __shared__ declaration: __shared__ variables cannot "
        "have an initializer\n");
  CHECK(tr_error("void f() {\n  __shared__ int [4];\n}") ==
        "t.cu:2:18: error: cannot parse this __shared__ declaration: expected a type and a "
        "variable name\n");
  CHECK(tr_error("void f() {\n  __shared__ int x[4]\n}") ==
        "t.cu:2:3: error: cannot parse this __shared__ declaration: expected ';'\n");
  CHECK(tr_error("void f() {\n  extern __shared__ int x[4];\n}") ==
        "t.cu:2:25: error: cannot parse this __shared__ declaration: extern __shared__ must "
        "declare one unsized array 'T name[]'\n");
  CHECK(tr_error("struct S {\n  __shared__ int m;\n};") ==
        "t.cu:2:3: error: __shared__ member declarations are not supported by the emulator\n");
}

TEST_CASE("errors: __shared__ in an extern \"C\" block is at namespace scope") {
  CHECK(tr_error("extern \"C\" {\n__shared__ float x[2];\n}")
            .find("t.cu:2:1: error: __shared__ "
                  "variables at namespace scope") == 0);
}

TEST_CASE("errors: several are all reported") {
  const std::string diag = tr_error("__shared__ int a;\nvoid f() { k<<<1(x); }\n__shared__ int b;\n");
  CHECK(diag.find("t.cu:1:1:") != std::string::npos);
  CHECK(diag.find("t.cu:2:13:") != std::string::npos);
  CHECK(diag.find("t.cu:3:1:") != std::string::npos);
}
