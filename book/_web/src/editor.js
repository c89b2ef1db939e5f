// The code editor of the practice pages: CodeMirror 6, bundled by build.mjs into
// _static/practice/editor.js as one IIFE that sets window.TokEditor. practice.js is
// the only caller: TokEditor.create(parent, options) -> {getValue, setValue, focus, view}.
"use strict";

import { EditorState, Compartment, Prec } from "@codemirror/state";
import {
  EditorView, keymap, lineNumbers, highlightActiveLineGutter, highlightSpecialChars,
  drawSelection, highlightActiveLine,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  HighlightStyle, syntaxHighlighting, indentOnInput, bracketMatching, indentUnit, LanguageSupport,
} from "@codemirror/language";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { python } from "@codemirror/lang-python";
// markdownLanguage (CommonMark + GFM) alone, not markdown(): that one also embeds the
// HTML, CSS and JavaScript parsers for HTML blocks, which would double the bundle.
import { markdownLanguage } from "@codemirror/lang-markdown";
import { tags as t } from "@lezer/highlight";

// The colours of the book's own code blocks (pydata-sphinx-theme's Pygments styles
// a11y-high-contrast-light and -dark), so an editable cell reads like the read-only
// cells around it in either mode.
function palette(c) {
  return [
    { tag: [t.comment, t.lineComment, t.blockComment], color: c.comment, fontStyle: "italic" },
    { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword,
      t.bool, t.null, t.self], color: c.purple },
    { tag: [t.string, t.special(t.string), t.docString, t.character], color: c.green },
    { tag: [t.number, t.integer, t.float, t.literal, t.escape], color: c.orange },
    { tag: [t.operator, t.arithmeticOperator, t.compareOperator, t.logicOperator,
      t.updateOperator, t.bitwiseOperator], color: c.green },
    { tag: [t.function(t.definition(t.variableName)), t.definition(t.className),
      t.className], color: c.blue },
    { tag: [t.standard(t.variableName), t.meta, t.annotation], color: c.orange },
    { tag: t.propertyName, color: c.magenta },
    { tag: t.invalid, color: c.red },
    // Markdown (the written answers).
    { tag: t.heading, color: c.blue, fontWeight: "bold" },
    { tag: t.strong, fontWeight: "bold" },
    { tag: t.emphasis, fontStyle: "italic" },
    { tag: t.link, color: c.blue, textDecoration: "underline" },
    { tag: t.url, color: c.blue },
    { tag: t.monospace, color: c.green },
    { tag: [t.list, t.quote], color: c.orange },
    { tag: t.processingInstruction, color: c.comment },
  ];
}

const lightStyle = HighlightStyle.define(palette({
  comment: "#515151", red: "#a12236", orange: "#7f4707", magenta: "#912583",
  green: "#00622f", blue: "#005b82", purple: "#6730c5",
}));
const darkStyle = HighlightStyle.define(palette({
  comment: "#ffd900", red: "#ffa07a", orange: "#ffd900", magenta: "#ffa07a",
  green: "#abe338", blue: "#00e0e0", purple: "#dcc6e0",
}), { themeType: "dark" });

// Colours come from the theme's CSS variables where it has them, with the Pygments
// backgrounds as fallbacks, so the editor follows the page rather than fighting it.
function baseTheme(dark) {
  const bg = dark ? "var(--tp-code-bg, #2b2b2b)" : "var(--tp-code-bg, #fefefe)";
  const fg = dark ? "var(--tp-code-fg, #f8f8f2)" : "var(--tp-code-fg, #080808)";
  return EditorView.theme({
    "&": { color: fg, backgroundColor: bg, fontSize: "var(--tp-code-size, 0.78125rem)" },
    ".cm-scroller": {
      fontFamily: "var(--pst-font-family-monospace, SFMono-Regular, Menlo, Consolas, monospace)",
      lineHeight: "1.5",
    },
    ".cm-content": { caretColor: fg, padding: "0.5rem 0" },
    ".cm-cursor, .cm-dropCursor": { borderLeftColor: fg },
    ".cm-gutters": {
      backgroundColor: bg, color: dark ? "#a0a0a0" : "#6e6e6e",
      borderRight: "1px solid var(--pst-color-border, #ccc)",
    },
    ".cm-activeLine": { backgroundColor: dark ? "#ffffff0d" : "#0000000a" },
    ".cm-activeLineGutter": { backgroundColor: dark ? "#ffffff14" : "#0000000f" },
    "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
      backgroundColor: dark ? "#ffd9004d !important" : "#fae4c2 !important",
    },
    "&.cm-focused .cm-matchingBracket": {
      backgroundColor: dark ? "#00e0e033" : "#005b8226", outline: "1px solid currentColor",
    },
    "&.cm-focused .cm-nonmatchingBracket": { backgroundColor: dark ? "#ffa07a55" : "#a1223633" },
  }, { dark });
}

function isDark() {
  return document.documentElement.dataset.theme === "dark";
}

function themeExtension(dark) {
  return [baseTheme(dark), syntaxHighlighting(dark ? darkStyle : lightStyle)];
}

// One observer for all editors: pydata-sphinx-theme flips <html data-theme> when the
// reader switches mode; each live editor reconfigures its theme compartment.
const live = new Set();
let observer = null;
function watchTheme(entry) {
  live.add(entry);
  if (observer) return;
  observer = new MutationObserver(() => {
    const dark = isDark();
    for (const e of live) {
      if (!e.view.dom.isConnected) { live.delete(e); continue; }
      if (e.dark === dark) continue;
      e.dark = dark;
      e.view.dispatch({ effects: e.compartment.reconfigure(themeExtension(dark)) });
    }
  });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
}

function runKeys(onRun) {
  const run = () => { if (onRun) onRun(); return true; };  // true: no newline inserted
  // Highest precedence: Shift+Enter must not fall through to insertNewline.
  return Prec.highest(keymap.of([
    { key: "Shift-Enter", run },
    { key: "Mod-Enter", run },
  ]));
}

function create(parent, options = {}) {
  const { doc = "", language = "python", readOnly = false, label = "Code editor",
    onChange = null, onRun = null } = options;
  const compartment = new Compartment();
  const dark = isDark();
  const extensions = [
    runKeys(onRun),
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    EditorState.allowMultipleSelections.of(true),
    indentOnInput(),
    bracketMatching(),
    closeBrackets(),
    highlightActiveLine(),
    EditorState.tabSize.of(4),
    indentUnit.of("    "),
    // indentWithTab: Tab indents; Escape then Tab (or Ctrl-M) moves focus on, so a
    // keyboard user is never trapped in the editor.
    keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, indentWithTab]),
    language === "markdown" ? [new LanguageSupport(markdownLanguage), EditorView.lineWrapping] : python(),
    compartment.of(themeExtension(dark)),
    // tabindex: the editable area is focusable anyway; saying so lets checkers (axe's
    // scrollable-region-focusable) see that its scroller can be reached by keyboard.
    EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
    EditorState.readOnly.of(readOnly),
    EditorView.editable.of(!readOnly),
    EditorView.updateListener.of((u) => {
      if (u.docChanged && onChange) onChange(u.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent, state: EditorState.create({ doc, extensions }) });
  const entry = { view, compartment, dark };
  watchTheme(entry);
  return {
    view,
    getValue: () => view.state.doc.toString(),
    setValue(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
  };
}

window.TokEditor = { create };
