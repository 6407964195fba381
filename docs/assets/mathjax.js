// MathJax reads arithmatex's generic output (\( \) inline, \[ \] blocks) and nothing else on the page.
window.MathJax = {
  tex: {inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true, processEnvironments: true},
  options: {ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex"}
};
document$.subscribe(() => { if (window.MathJax.typesetPromise) { MathJax.typesetPromise(); } });
