// tokref.char.CharTokenizer's twin: one token per code point.
import { tokx, pieceIndex } from "../core.js";
(function () {
  tokx.ENCODERS.char = function (spec, text) {
    const idx = pieceIndex(spec);
    const toks = [];
    let i = 0;
    for (const ch of text) {
      const id = idx.has(ch) ? idx.get(ch) : spec.unk;
      toks.push([id, i, i + 1, id === spec.unk ? 2 : 0]);
      i++;
    }
    return { mode: "chars", toks };
  };
})();
