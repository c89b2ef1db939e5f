"""Wrong solutions of the ``quality`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in (Part 4's cell holds two
functions, so its entries hold both, one of them right).
"""

import json
import re
from pathlib import Path

_SOURCE = Path(__file__).resolve().parents[2] / "source" / "quality" / "quality.ipynb"


def _solution(grade_id: str) -> str:
    """The instructor's code of a solution cell, markers removed."""
    for cell in json.loads(_SOURCE.read_text(encoding="utf-8"))["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
            code = "".join(cell["source"])
            return re.sub(r"\n *### (BEGIN|END) SOLUTION", "", code)
    raise KeyError(grade_id)


def _wrong(grade_id: str, *changes: tuple[str, str]) -> dict[str, str]:
    """The solution of ``grade_id`` with each ``(old, new)`` replaced (each ``old`` must occur)."""
    code = _solution(grade_id)
    for old, new in changes:
        assert old in code, (grade_id, old)
        code = code.replace(old, new)
    return {grade_id: code}


WRONG = {
    # Part 1: estimate_discount
    "discount_n2_once": {
        "mistake": "estimate_discount divides by n1 + n2 instead of n1 + 2 * n2",
        "code": _wrong("quality-discount", ("n1 / (n1 + 2 * n2)", "n1 / (n1 + n2)")),
    },
    "discount_fallback_only_when_both_zero": {
        "mistake": "estimate_discount falls back to 0.5 only when n1 and n2 are both 0, "
                   "so a table without 1s gives 0 and one without 2s gives 1",
        "code": _wrong("quality-discount", ("if n1 == 0 or n2 == 0:", "if n1 == 0 and n2 == 0:")),
    },
    "discount_fallback_only_without_n1": {
        "mistake": "estimate_discount falls back only when n1 is 0, so a table without 2s gives 1",
        "code": _wrong("quality-discount", ("if n1 == 0 or n2 == 0:", "if n1 == 0:")),
    },
    "discount_other_fallback": {
        "mistake": "estimate_discount falls back to 0.75 instead of the course's 0.5",
        "code": _wrong("quality-discount", ("return 0.5", "return 0.75")),
    },
    "discount_calls_the_course_version": {
        "mistake": "estimate_discount returns the setup's course_estimate_discount(counts), which is "
                   "there only to test Part 2 on its own",
        "code": {"quality-discount": "def estimate_discount(counts):\n"
                                     "    return course_estimate_discount(counts)\n"},
    },
    # Part 2: kneser_ney_model
    "model_raw_counts_below": {
        "mistake": "the lower orders use ordinary counts instead of continuation counts",
        "code": _wrong("quality-model", (
            "        for longer in {gram[-(k + 1):] for gram in top}:\n"
            "            table[longer[1:]] = table.get(longer[1:], 0) + 1\n",
            "        for gram, c in top.items():\n"
            "            table[gram[-k:]] = table.get(gram[-k:], 0) + c\n")),
    },
    "model_uniform_without_eos": {
        "mistake": "P_0 is 1 / vocab_size, forgetting that EOS is an outcome too",
        "code": _wrong("quality-model", ("p = 1 / (vocab_size + 1)", "p = 1 / vocab_size")),
    },
    "model_no_eos_event": {
        "mistake": "the model never counts the end of a sequence as an event",
        "code": _wrong("quality-model", ("padded = [bos] * (order - 1) + list(seq) + [eos]",
                                          "padded = [bos] * (order - 1) + list(seq)")),
    },
    "model_no_bos_padding": {
        "mistake": "sequences are not padded with BOS, so the first tokens of a sequence are "
                   "never events with a full context",
        "code": _wrong("quality-model", ("padded = [bos] * (order - 1) + list(seq) + [eos]",
                                          "padded = list(seq) + [eos]")),
    },
    "model_one_discount": {
        "mistake": "every order uses the top order's discount instead of its own",
        "code": _wrong("quality-model", ("d = discount[k]", "d = discount[order]")),
    },
    "model_unseen_context_uniform": {
        "mistake": "a context never seen gives the uniform P_0 instead of the shorter "
                   "context's estimate",
        "code": _wrong("quality-model", (
            "            if h not in totals[k]:  # never seen: the shorter context's estimate stands\n"
            "                break\n",
            "            if h not in totals[k]:\n"
            "                return 1 / (vocab_size + 1)\n")),
    },
    "model_context_without_bos": {
        "mistake": "prob does not fill a short context with BOS, so the start of a sequence "
                   "is looked up as an unseen context",
        "code": _wrong("quality-model", (
            "        history = [bos] * (order - 1) + list(context)\n",
            "        history = list(context)\n")),
    },
    "model_sequences_joined": {
        "mistake": "the sequences are joined into one, so n-grams run from one sequence into the next",
        "code": _wrong("quality-model", (
            "    for seq in sequences:\n        padded = [bos] * (order - 1) + list(seq) + [eos]\n",
            "    for seq in [[i for s in sequences for i in s]]:\n"
            "        padded = [bos] * (order - 1) + list(seq) + [eos]\n")),
    },
    "model_continuation_without_bos": {
        "mistake": "the continuation counts leave BOS out of the symbols that come before",
        "code": _wrong("quality-model", (
            "        for longer in {gram[-(k + 1):] for gram in top}:\n",
            "        for longer in {gram[-(k + 1):] for gram in top if gram[-(k + 1)] != bos}:\n")),
    },
    "model_no_interpolation": {
        "mistake": "a seen context backs off only for unseen tokens (D * T * P_{k-1} is left out "
                   "when the n-gram was seen)",
        "code": _wrong("quality-model", (
            "            p = (max(c - d, 0) + d * types[k][h] * p) / totals[k][h]",
            "            p = (c - d) / totals[k][h] if c else d * types[k][h] * p / totals[k][h]")),
    },
    # Part 3: bits_per_byte
    "bpb_without_eos": {
        "mistake": "bits_per_byte leaves out the bits of each sequence's end",
        "code": _wrong("quality-bpb", ("enumerate(list(ids) + [vocab_size])", "enumerate(list(ids))")),
    },
    "bpb_per_character": {
        "mistake": "bits_per_byte divides by characters, not UTF-8 bytes",
        "code": _wrong("quality-bpb", ('len(text.encode("utf-8"))', "len(text)")),
    },
    "bpb_natural_log": {
        "mistake": "bits_per_byte uses the natural logarithm (nats), not log base 2 (bits)",
        "code": _wrong("quality-bpb", ("math.log2(", "math.log(")),
    },
    "bpb_per_token": {
        "mistake": "bits_per_byte divides by the number of tokens (bits per token)",
        "code": _wrong("quality-bpb", ("return bits / n_bytes",
                                        "return bits / max(1, sum(len(ids) for ids in heldout_ids))")),
    },
    "bpb_byte_per_eos": {
        "mistake": "bits_per_byte counts one more byte per text for its end (the chapter's "
                   "denominator is the text's bytes)",
        "code": _wrong("quality-bpb", ("return bits / n_bytes", "return bits / (n_bytes + len(heldout_texts))")),
    },
    "bpb_lengths_unchecked": {
        "mistake": "bits_per_byte does not refuse heldout_ids and heldout_texts of different lengths",
        "code": _wrong("quality-bpb", ("if len(heldout_ids) != len(heldout_texts):", "if False:")),
    },
    # Part 4: sweep_vocab_sizes and best_vocab_size
    "sweep_keeps_lossy": {
        "mistake": "sweep_vocab_sizes keeps the tokenizations that do not decode to the held-out texts",
        "code": _wrong("quality-sweep", ('if list(tok["decoded"]) != list(heldout_texts):', "if False:")),
    },
    "sweep_one_vocab_size": {
        "mistake": "sweep_vocab_sizes gives every model the largest vocabulary size of the grid",
        "code": _wrong("quality-sweep", ("order=order, vocab_size=size)",
                                          "order=order, vocab_size=max(tokenizations))")),
    },
    "best_exact_minimum": {
        "mistake": "best_vocab_size ignores the tolerance and returns the exact minimum",
        "code": _wrong("quality-sweep", ("if bpb <= lowest + tolerance", "if bpb <= lowest")),
    },
    "best_largest_within_tolerance": {
        "mistake": "best_vocab_size returns the largest size within the tolerance, not the smallest",
        "code": _wrong("quality-sweep", ("return min(size for size, bpb in table.items() if bpb <= lowest + tolerance)",
                                          "return max(size for size, bpb in table.items() if bpb <= lowest + tolerance)")),
    },
    "best_empty_table_none": {
        "mistake": "best_vocab_size returns None for an empty table instead of raising ValueError",
        "code": _wrong("quality-sweep", ('        raise ValueError("table is empty: no lossless tokenization to choose from")',
                                          "        return None")),
    },
}
