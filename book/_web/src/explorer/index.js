"use strict";
// The explorers' static face, the entry of its bundle: book/_web/build.mjs bundles these
// ES modules with esbuild into solutions/tokref/explorer/static/tokx.js (an IIFE, kept
// in the tokref package, so tokref.explorer works outside the book with no npm), which
// tokref.explorer.faces.script() inlines into each explorer's HTML.
//
// core.js holds the namespace `tokx` and the shared helpers; every other module adds
// its part to `tokx` when it is evaluated, in the order imported here (regexes, Unicode
// tables, the tokenizers' twins, the markup, the chart, the three explorers); mount.js
// then publishes the API as window.TokX, once per page.
import "./core.js";
import "./regex.js";
import "./unicode.js";
import "./engines/char.js";
import "./engines/word.js";
import "./engines/bpe.js";
import "./engines/bytelevel.js";
import "./engines/wordpiece.js";
import "./engines/unigram.js";
import "./view.js";
import "./chart.js";
import "./merge.js";
import "./compare.js";
import "./tradeoff.js";
import { publish } from "./mount.js";

if (!window.TokX) publish();
