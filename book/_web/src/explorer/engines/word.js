// tokref.word.WordTokenizer's twin: WORD_PATTERN matches, looked up (lowercased if asked).
import { tokx, pieceIndex } from "../core.js";
(function () {
  const { compileRegex, findall } = tokx;
  tokx.ENCODERS.word = function (spec, text, classes) {
    const idx = pieceIndex(spec);
    return {
      mode: "chars",
      toks: findall(compileRegex(spec.re, classes), text).map(([s, e, w]) => {
        if (spec.lowercase) w = w.toLowerCase();
        const id = idx.has(w) ? idx.get(w) : spec.unk;
        return [id, s, e, id === spec.unk ? 2 : 0];
      }),
    };
  };
})();
