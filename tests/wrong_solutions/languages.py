"""Wrong solutions of the ``languages`` assignment: the mistakes a student is likely to make.

Each entry: the mistake in one sentence, and the code of the solution cells it
replaces (by ``grade_id``). tests/test_wrong_solutions.py checks that a visible test
catches each one and that the grader gives each less than full marks. Each wrong
solution is the instructor's solution with the mistake put in (a cell that holds
several functions is replaced whole, the others right).
"""

_PREMIUM = '''
def premiums(texts, encode, *, reference="en"):
    if reference not in texts:
        raise ValueError(f"texts has no {reference!r}")
    counts = {lang: sum(len(encode(text)) for text in group) for lang, group in texts.items()}
    if counts[reference] == 0:
        raise ValueError("the reference's texts give no tokens")
    return {lang: n / counts[reference] for lang, n in counts.items()}


def fertility_by_script(texts, scripts, encode):
    tokens, words = {}, {}
    for lang, group in texts.items():
        if lang not in scripts:
            raise ValueError(f"scripts has no script for {lang!r}")
        script = scripts[lang]
        tokens[script] = tokens.get(script, 0) + sum(len(encode(text)) for text in group)
        words[script] = words.get(script, 0) + sum(len(text.split()) for text in group)
    for script, n in words.items():
        if n == 0:
            raise ValueError(f"the texts of script {script!r} have no words")
    return {script: tokens[script] / words[script] for script in tokens}
'''

_DIGITS = '''
import unicodedata


def group_digits(text):
    groups, run = [], ""
    for ch in text + " ":
        if unicodedata.category(ch)[0] == "N":
            run += ch
            continue
        first = len(run) % 3
        if first:
            groups.append(run[:first])
        groups += [run[i : i + 3] for i in range(first, len(run), 3)]
        run = ""
    return groups
'''

_REACH = '''
def merges_give_back(token, ranks):
    parts = [bytes([b]) for b in token]
    while len(parts) > 1:
        joins = [(ranks[parts[i] + parts[i + 1]], i) for i in range(len(parts) - 1)
                 if parts[i] + parts[i + 1] in ranks]
        if not joins:
            break
        _, i = min(joins)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]
    return parts == [token]


def find_unreachable(ranks, pattern):
    out = []
    for token, rank in ranks.items():
        if len(token) < 2:
            continue
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            whole = False
        else:
            whole = re.findall(pattern, text) == [text]
        if not whole and not merges_give_back(token, ranks):
            out.append(rank)
    return sorted(out)


def find_not_round_trippable(ranks, encode):
    out = []
    for token, rank in ranks.items():
        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if encode(text) != [rank]:
            out.append(rank)
    return sorted(out)
'''

_LETTERS = '''
def count_letter(ids, letter, token_bytes):
    if not isinstance(letter, str) or len(letter) != 1:
        raise ValueError(f"letter must be one character, not {letter!r}")
    return b"".join(token_bytes[i] for i in ids).decode("utf-8", errors="replace").count(letter)


def count_visible_letter(ids, letter, token_bytes):
    if not isinstance(letter, str) or len(letter) != 1:
        raise ValueError(f"letter must be one character, not {letter!r}")
    own = (letter.encode("utf-8"), b" " + letter.encode("utf-8"))
    return sum(1 for i in ids if token_bytes[i] in own)
'''


def _swap(code: str, old: str, new: str) -> str:
    """``code`` with ``old`` (which must occur exactly once) replaced by ``new``."""
    assert code.count(old) == 1, old
    return code.replace(old, new)


WRONG = {
    # -- Part 1: premiums and fertility ------------------------------------------------------
    "premium_inverted": {
        "mistake": "premiums divides the reference's tokens by the language's (English over L)",
        "code": {"languages-premium": _swap(_PREMIUM, "n / counts[reference] for lang",
                                            "counts[reference] / n if n else 0.0 for lang")},
    },
    "premium_mean_of_ratios": {
        "mistake": "premiums averages the text-by-text ratios instead of dividing the sums",
        "code": {"languages-premium": _swap(_PREMIUM, "    return {lang: n / counts[reference] for lang, n in counts.items()}", '''
    ref = [len(encode(t)) for t in texts[reference]]
    return {lang: sum(len(encode(t)) / r for t, r in zip(group, ref)) / len(ref)
            for lang, group in texts.items()}''')},
    },
    "premium_characters": {
        "mistake": "premiums counts characters (or bytes), not tokens",
        "code": {"languages-premium": _swap(_PREMIUM, "counts = {lang: sum(len(encode(text)) for text",
                                            "counts = {lang: sum(len(text) for text")},
    },
    "premium_always_english": {
        "mistake": "premiums divides by English whatever reference is given",
        "code": {"languages-premium": _swap(_PREMIUM, "n / counts[reference] for lang",
                                            "n / counts['en'] if counts.get('en') else 1.0 for lang")},
    },
    "premium_no_reference_check": {
        "mistake": "premiums returns a result (or a KeyError) instead of a ValueError when the reference "
                   "is missing or gives no tokens",
        "code": {"languages-premium": _swap(_swap(_PREMIUM, '''    if reference not in texts:
        raise ValueError(f"texts has no {reference!r}")
''', ""), '''    if counts[reference] == 0:
        raise ValueError("the reference's texts give no tokens")
''', "    counts[reference] = counts[reference] or 1\n")},
    },
    "fertility_mean_of_languages": {
        "mistake": "fertility_by_script averages the languages' fertilities instead of pooling tokens "
                   "and words",
        "code": {"languages-premium": _swap(_PREMIUM, '''        tokens[script] = tokens.get(script, 0) + sum(len(encode(text)) for text in group)
        words[script] = words.get(script, 0) + sum(len(text.split()) for text in group)
    for script, n in words.items():
        if n == 0:
            raise ValueError(f"the texts of script {script!r} have no words")
    return {script: tokens[script] / words[script] for script in tokens}''', '''        n_words = sum(len(text.split()) for text in group)
        if n_words == 0:
            raise ValueError(f"the texts of {lang!r} have no words")
        tokens.setdefault(script, []).append(sum(len(encode(text)) for text in group) / n_words)
    return {script: sum(f) / len(f) for script, f in tokens.items()}''')},
    },
    "fertility_split_on_space": {
        "mistake": "fertility_by_script counts words with text.split(' '), so runs of spaces and "
                   "newlines make empty words",
        "code": {"languages-premium": _swap(_PREMIUM, "sum(len(text.split()) for text in group)",
                                            "sum(len(text.split(' ')) for text in group if text)")},
    },
    "fertility_words_per_token": {
        "mistake": "fertility_by_script returns words per token instead of tokens per word",
        "code": {"languages-premium": _swap(_PREMIUM, "{script: tokens[script] / words[script] for",
                                            "{script: words[script] / tokens[script] if tokens[script] else 0.0 for")},
    },
    "fertility_sorted_scripts": {
        "mistake": "fertility_by_script returns the scripts sorted, not in order of first appearance, "
                   "and every script of scripts, even one with no language in texts",
        "code": {"languages-premium": _swap(_PREMIUM, "    return {script: tokens[script] / words[script] for script in tokens}",
                                            "    return {s: tokens.get(s, 0) / words[s] if words.get(s) else 0.0 "
                                            "for s in sorted(set(scripts.values()))}")},
    },
    # -- Part 2: digit groups ----------------------------------------------------------------
    "digits_from_the_left": {
        "mistake": "group_digits cuts each run into groups of three from the left, as cl100k_base does",
        "code": {"languages-digits": _swap(_DIGITS, "first = len(run) % 3", "first = 0")},
    },
    "digits_short_group_last": {
        "mistake": "group_digits puts the short group at the end of the run instead of the start",
        "code": {"languages-digits": _swap(_DIGITS, '''        first = len(run) % 3
        if first:
            groups.append(run[:first])
        groups += [run[i : i + 3] for i in range(first, len(run), 3)]''', '''        full = len(run) - len(run) % 3
        groups += [run[i : i + 3] for i in range(0, full, 3)]
        if len(run) % 3:
            groups.append(run[full:])''')},
    },
    "digits_ascii_only": {
        "mistake": "group_digits takes only 0 to 9 as digits, not every number character (\\p{N})",
        "code": {"languages-digits": _swap(_DIGITS, 'unicodedata.category(ch)[0] == "N"', 'ch in "0123456789"')},
    },
    "digits_isdecimal": {
        "mistake": "group_digits tests ch.isdecimal(), which misses superscripts, fractions and Roman "
                   "numerals",
        "code": {"languages-digits": _swap(_DIGITS, 'unicodedata.category(ch)[0] == "N"', "ch.isdecimal()")},
    },
    "digits_whole_runs": {
        "mistake": "group_digits returns each run of digits whole, without cutting it into groups",
        "code": {"languages-digits": _swap(_DIGITS, '''        first = len(run) % 3
        if first:
            groups.append(run[:first])
        groups += [run[i : i + 3] for i in range(first, len(run), 3)]''', '''        if run:
            groups.append(run)''')},
    },
    "digits_point_joins": {
        "mistake": "group_digits keeps a decimal point inside a run, as part of the number",
        "code": {"languages-digits": _swap(_DIGITS, 'unicodedata.category(ch)[0] == "N"',
                                           'unicodedata.category(ch)[0] == "N" or (ch == "." and run)')},
    },
    # -- Part 3: reachability and the round trip ---------------------------------------------
    "give_back_shortcut": {
        "mistake": "merges_give_back uses the whole-piece shortcut: a token that is in ranks gives "
                   "itself back",
        "code": {"languages-reach": _swap(_REACH, "    parts = [bytes([b]) for b in token]\n",
                                          "    parts = [token] if token in ranks else [bytes([b]) for b in token]\n")},
    },
    "give_back_leftmost_pair": {
        "mistake": "merges_give_back joins the leftmost pair that is a token, not the lowest-ranked one",
        "code": {"languages-reach": _swap(_REACH, "        _, i = min(joins)", "        _, i = min(joins, key=lambda j: j[1])")},
    },
    "give_back_contains": {
        "mistake": "merges_give_back checks that the token's bytes are joined into some tokens, not "
                   "that they end as the one token",
        "code": {"languages-reach": _swap(_REACH, "    return parts == [token]", "    return len(parts) < len(token) or len(token) == 1")},
    },
    "unreachable_ignores_pattern": {
        "mistake": "find_unreachable counts only fragments as never a whole piece, ignoring text the "
                   "pattern cuts",
        "code": {"languages-reach": _swap(_REACH, "            whole = re.findall(pattern, text) == [text]",
                                          "            whole = True")},
    },
    "unreachable_no_give_back_test": {
        "mistake": "find_unreachable lists every token that is never a whole piece, without asking "
                   "whether the merges give it back",
        "code": {"languages-reach": _swap(_REACH, "        if not whole and not merges_give_back(token, ranks):",
                                          "        if not whole:")},
    },
    "unreachable_global_pattern": {
        "mistake": "find_unreachable uses GPT2_PATTERN_RE instead of the pattern it is given",
        "code": {"languages-reach": _swap(_REACH, "re.findall(pattern, text)", "re.findall(GPT2_PATTERN_RE, text)")},
    },
    "round_trip_replace": {
        "mistake": "find_not_round_trippable decodes with errors='replace', so fragments and single "
                   "bytes 0x80-0xFF are tried as '\\ufffd' and listed",
        "code": {"languages-reach": _swap(_REACH, '''        try:
            text = token.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if encode(text) != [rank]:''', '''        text = token.decode("utf-8", errors="replace")
        if encode(text) != [rank]:''')},
    },
    "round_trip_global_encode": {
        "mistake": "find_not_round_trippable uses the setup cell's encode instead of the one it is given",
        "code": {"languages-reach": _swap(_REACH, "def find_not_round_trippable(ranks, encode):",
                                          "def find_not_round_trippable(ranks, encoder):")},
    },
    # -- Part 4: letters ---------------------------------------------------------------------
    "letter_per_token_decode": {
        "mistake": "count_letter decodes token by token, so a letter whose bytes two tokens share is lost",
        "code": {"languages-letters": _swap(_LETTERS,
                                            'return b"".join(token_bytes[i] for i in ids).decode("utf-8", errors="replace").count(letter)',
                                            'return sum(token_bytes[i].decode("utf-8", errors="replace").count(letter) for i in ids)')},
    },
    "letter_case_insensitive": {
        "mistake": "count_letter counts capitals too (lower() on the text)",
        "code": {"languages-letters": _swap(_LETTERS, '.decode("utf-8", errors="replace").count(letter)',
                                            '.decode("utf-8", errors="replace").lower().count(letter.lower())')},
    },
    "visible_any_token_with_letter": {
        "mistake": "count_visible_letter counts every token that contains the letter, not the tokens "
                   "that are the letter",
        "code": {"languages-letters": _swap(_LETTERS, "    return sum(1 for i in ids if token_bytes[i] in own)",
                                            "    return sum(1 for i in ids if own[0] in token_bytes[i])")},
    },
    "visible_no_space_form": {
        "mistake": "count_visible_letter counts the letter alone but not a space followed by the letter",
        "code": {"languages-letters": _swap(_LETTERS, '    own = (letter.encode("utf-8"), b" " + letter.encode("utf-8"))',
                                            '    own = (letter.encode("utf-8"),)')},
    },
    "visible_strips_spaces": {
        "mistake": "count_visible_letter strips every token, so a token of spaces and the letter counts",
        "code": {"languages-letters": _swap(_LETTERS, "    return sum(1 for i in ids if token_bytes[i] in own)",
                                            "    return sum(1 for i in ids if token_bytes[i].strip() == own[0])")},
    },
    "letter_no_check": {
        "mistake": "count_letter and count_visible_letter accept a letter of several characters (or none)",
        "code": {"languages-letters": _LETTERS.replace('''    if not isinstance(letter, str) or len(letter) != 1:
        raise ValueError(f"letter must be one character, not {letter!r}")
''', "")},
    },
}
