// Builds the book's JavaScript (all of it, with esbuild) and the practice pages' Python:
//   dist/practice/editor.js    the CodeMirror bundle (src/editor.js, IIFE, minified)
//   dist/practice/practice.js  the practice page (src/practice/*.js, ES modules, entry
//                              main.js; IIFE, minified, loaded deferred by the page)
//   solutions/tokref/explorer/static/tokx.js  the explorers' static face (src/explorer/*.js,
//                              ES modules, entry index.js; IIFE, minified), kept in git
//                              and in the tokref package: tokref.explorer inlines it
//                              into each explorer's HTML, with no npm at the reader's.
//                              `node build.mjs --check` only says whether it is stale.
//   dist/pyodide/            a stdlib-only Pyodide: the files loadPyodide() fetches, no packages
//   dist/pyodide/MANIFEST.json  the version, and each copied file's size and SHA-256
// Run `npm ci` here first, then `node book/_web/build.mjs` from anywhere.
"use strict";

import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync }
  from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const pyodideSrc = join(here, "node_modules", "pyodide");

// Exactly what loadPyodide({indexURL}) fetches from a classic worker with no packages:
// the loader, the Emscripten module and its wasm, the standard library, the lock file.
const PYODIDE_FILES = [
  "pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json",
];

function fail(message) {
  console.error(`build.mjs: ${message}`);
  process.exit(1);
}

function readJSON(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    return fail(`cannot read ${path} (${e.message}); run \`npm ci\` in ${here} first`);
  }
}

// The pin in package.json is the version the book promises; a stale node_modules
// (e.g. after the pin changed but before `npm ci`) must not slip through.
function checkPyodideVersion() {
  const pinned = readJSON(join(here, "package.json")).dependencies.pyodide;
  const installed = readJSON(join(pyodideSrc, "package.json")).version;
  if (pinned !== installed) {
    fail(`pyodide ${installed} is installed but package.json pins ${pinned}; run \`npm ci\` in ${here}`);
  }
  return installed;
}

function sha256(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

// Copy only when the size or content differs, so a rebuild leaves mtimes (and the
// browser's and Sphinx's idea of "changed") alone.
function copyIfChanged(src, dst) {
  if (existsSync(dst) && statSync(dst).size === statSync(src).size && sha256(dst) === sha256(src)) {
    return;
  }
  copyFileSync(src, dst);
}

function writeIfChanged(path, text) {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileSync(path, text);
}

// The npm tarball carries no LICENSE file (only "license": "MPL-2.0" in package.json):
// copy one if a release ships it, else write a notice naming the licences and sources.
function licenseFiles(out, version) {
  const shipped = readdirSync(pyodideSrc).filter((f) => /^(LICEN[CS]E|COPYING)(\.\w+)?$/i.test(f));
  for (const f of shipped) copyIfChanged(join(pyodideSrc, f), join(out, f));
  if (shipped.length) return shipped;
  const pkg = readJSON(join(pyodideSrc, "package.json"));
  writeIfChanged(join(out, "LICENSE"), [
    `Pyodide ${version}, copied unmodified from the npm package "pyodide@${version}".`,
    `License: ${pkg.license} (Mozilla Public License 2.0, https://mozilla.org/MPL/2.0/).`,
    `Source code: https://github.com/pyodide/pyodide/tree/${version}`,
    "python_stdlib.zip and the interpreter in pyodide.asm.wasm are CPython, under the",
    "Python Software Foundation License (https://docs.python.org/3/license.html).",
    "",
  ].join("\n"));
  return ["LICENSE"];
}

function copyPyodide(version) {
  const out = join(dist, "pyodide");
  mkdirSync(out, { recursive: true });
  for (const f of PYODIDE_FILES) {
    const src = join(pyodideSrc, f);
    if (!existsSync(src)) fail(`pyodide ${version} has no ${f}; the file list in build.mjs needs updating`);
    copyIfChanged(src, join(out, f));
  }
  const names = [...PYODIDE_FILES, ...licenseFiles(out, version)];
  const files = {};
  for (const f of names) {
    const p = join(out, f);
    files[f] = { size: statSync(p).size, sha256: sha256(p) };
  }
  writeIfChanged(join(out, "MANIFEST.json"), JSON.stringify({ pyodide: version, files }, null, 1) + "\n");
  return Object.values(files).reduce((n, f) => n + f.size, 0);
}

// Every bundle: ES modules in, one minified IIFE out (a classic script, no server
// features, works offline), its first line saying it is generated and from what.
const BUNDLES = {
  editor: { entry: "src/editor.js", out: join(dist, "practice", "editor.js"),
    from: "book/_web/src/editor.js and the CodeMirror packages of book/_web/package-lock.json" },
  practice: { entry: "src/practice/main.js", out: join(dist, "practice", "practice.js"),
    from: "book/_web/src/practice/*.js (entry main.js)" },
  explorer: { entry: "src/explorer/index.js",
    out: join(here, "..", "..", "solutions", "tokref", "explorer", "static", "tokx.js"),
    from: "book/_web/src/explorer/**/*.js (entry index.js)" },
};

let esbuildModule = null;
async function esbuild() {
  if (esbuildModule) return esbuildModule;
  try {
    esbuildModule = await import("esbuild");
  } catch (e) {
    fail(`esbuild is not installed (${e.message}); run \`npm ci\` in ${here}`);
  }
  return esbuildModule;
}

// The bundle's text (nothing written).
async function bundleText({ entry, from }) {
  const result = await (await esbuild()).build({
    absWorkingDir: here,
    entryPoints: [join(here, entry)],
    bundle: true,
    format: "iife",
    minify: true,
    target: "es2020",
    legalComments: "eof",  // keep the MIT notices of CodeMirror and Lezer in the bundle
    banner: { js: `// Generated by book/_web/build.mjs (esbuild) from ${from}: do not edit, run \`make web\`.` },
    logLevel: "warning",
    write: false,
  });
  return result.outputFiles[0].text;
}

async function bundle(name) {
  const b = BUNDLES[name];
  const text = await bundleText(b);
  mkdirSync(dirname(b.out), { recursive: true });
  writeIfChanged(b.out, text);
  return statSync(b.out).size;
}

// --check: is the committed explorer bundle what its sources make? (tests/test_explorer.py)
if (process.argv.includes("--check")) {
  const b = BUNDLES.explorer;
  const stale = !existsSync(b.out) || readFileSync(b.out, "utf8") !== await bundleText(b);
  if (stale) fail(`${b.out} is not what book/_web/src/explorer makes: run \`make web\` and commit it`);
  console.log(`${b.out} is up to date`);
  process.exit(0);
}

const version = checkPyodideVersion();  // first: a stale install writes nothing
const editorBytes = await bundle("editor");
const practiceBytes = await bundle("practice");
const explorerBytes = await bundle("explorer");
const pyodideBytes = copyPyodide(version);
const mb = (n) => (n / 1e6).toFixed(1);
console.log(`built ${dist}: ${editorBytes + practiceBytes + pyodideBytes} bytes `
  + `(editor ${editorBytes}, practice ${practiceBytes}, pyodide ${mb(pyodideBytes)} MB); `
  + `explorers ${explorerBytes} bytes in ${BUNDLES.explorer.out}`);
