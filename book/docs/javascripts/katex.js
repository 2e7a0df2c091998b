// Typesets the book's math with KaTeX (Debian's libjs-katex, copied into the site by
// hooks/katex.py, so it works offline). pymdownx.arithmatex (generic: true) leaves inline math as
// \(...\) and display math as \[...\] in elements of class "arithmatex"; only those are rendered,
// never code. A formula KaTeX cannot parse shows in red (class katex-error) instead of stopping
// the page.
function typesetMath(root) {
  for (const element of root.querySelectorAll(".arithmatex")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  }
}

// Material for MkDocs announces each page it shows on document$; without it, wait for the DOM.
if (typeof document$ !== "undefined") {
  document$.subscribe(({ body }) => typesetMath(body));
} else {
  document.addEventListener("DOMContentLoaded", () => typesetMath(document.body));
}
