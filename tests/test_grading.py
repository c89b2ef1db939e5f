"""tokgrade.grading: check_same must let only plain, honest data pass; the hidden tests'
path (run_cases, then check_outcomes) must isolate the student from the reference; the
random inputs must be reproducible."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from tokref import WordTokenizer
from tokgrade.grading import (
    ASCII_LETTERS,
    HiddenTest,
    check_outcomes,
    check_same,
    random_corpus,
    random_prose,
    random_text,
    random_texts,
    run_cases,
)
from tokref.word import split_words


class Liar:
    """Equal to everything, and hashable like anything: fools `==` and `in`."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __hash__(self):
        return hash("a")


class MyList(list):
    pass


class MyStr(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__


def _fails(actual, expected, match, **kwargs):
    with pytest.raises(AssertionError, match=match):
        check_same(actual, expected, **kwargs)


# ---------------------------------------------------------------------------
# check_same: what passes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", [
    0, -7, 2**80, 1.5, "", "héllo 😀", b"\x00\xff", None, True, False,
    [], [1, "a", [2.0, None]], (1, (2, "x")), {}, {"a": 1, 3: [True]},
    {1, "a", (1, 2)}, frozenset({b"x"}),
    {("a", "b"): 3, ("b", "c"): 1},          # pair counts: tuple keys are plain data
    {"merges": [("a", "b")], "vocab": {"ab": 0}},
])
def test_equal_plain_data_passes(value):
    import copy

    assert check_same(copy.deepcopy(value), value) is None


def test_dict_key_order_does_not_matter():
    check_same({"b": 2, "a": 1}, {"a": 1, "b": 2})


def test_float_tolerance():
    check_same(0.1 + 0.2, 0.3)
    check_same(1.0 + 1e-10, 1.0)
    check_same(math.inf, math.inf)
    _fails(1.0 + 1e-6, 1.0, r"result: expected 1\.0, got 1\.000001")
    check_same(1.0 + 1e-6, 1.0, rel_tol=1e-5)
    _fails(1e-11, 0.0, r"expected 0\.0")
    check_same(1e-13, 0.0)  # within abs_tol
    _fails(-math.inf, math.inf, r"expected inf, got -inf")


def test_nan():
    check_same(math.nan, math.nan)  # NaN is the right answer when NaN was expected
    _fails(math.nan, 1.0, r"result: expected 1\.0, got nan")
    _fails(1.0, math.nan, r"result: expected nan, got 1\.0")
    _fails([0.5, math.nan], [0.5, 0.0], r"result\[1\]: expected 0\.0, got nan")


# ---------------------------------------------------------------------------
# check_same: what is rejected
# ---------------------------------------------------------------------------


def test_tuple_for_list_says_convert():
    _fails((1, 2), [1, 2], r"^result: expected a list, got a tuple \(convert it with list\(\.\.\.\)\)$")


def test_list_for_tuple():
    _fails([1, 2], (1, 2), r"^result: expected a tuple, got a list$")


def test_list_subclass():
    _fails(MyList([1, 2]), [1, 2], r"^result: expected a list, got a MyList$")


def test_numpy_numbers_say_convert():
    _fails(np.int64(3), 3, r"^result: expected a int, got a int64 \(a NumPy number\? convert it with int\(x\)\)$")
    _fails(np.float64(0.5), 0.5, r"got a float64 \(a NumPy number\? convert it with float\(x\)\)$")
    _fails([1, np.int64(2)], [1, 2], r"^result\[1\]: expected a int, got a int64")
    _fails(np.array([1, 2]), [1, 2], r"expected a list, got a ndarray")


def test_bool_and_int_are_different():
    _fails(True, 1, r"^result: expected a int, got a bool$")
    _fails(1, True, r"^result: expected a bool, got a int$")
    _fails(0, 0.0, r"^result: expected a float, got a int$")
    _fails(1.0, 1, r"^result: expected a int, got a float$")


def test_liar_as_the_top_value():
    _fails(Liar(), "abc", r"^result: expected a str, got a Liar$")
    _fails(Liar(), [1], r"expected a list, got a Liar")


def test_liar_as_a_list_item():
    _fails([1, Liar()], [1, 2], r"^result\[1\]: expected a int, got a Liar$")


def test_liar_as_a_dict_key():
    _fails({Liar(): 1}, {"a": 1}, r"^result: key <.*Liar object.*> is a Liar$")


def test_liar_inside_a_tuple_key():
    _fails({("a", Liar()): 1}, {("a", "b"): 1}, r"^result: key \('a', <.*Liar.*>\) \(it holds <.*>\) is a Liar$")


def test_liar_as_a_dict_value():
    _fails({"a": Liar()}, {"a": 1}, r"^result\['a'\]: expected a int, got a Liar$")


def test_liar_as_a_set_member():
    _fails({Liar()}, {"a"}, r"^result: member <.*Liar.*> is a Liar$")


def test_str_subclass():
    _fails(MyStr("abc"), "abc", r"^result: expected a str, got a MyStr$")
    _fails(["x", MyStr("y")], ["x", "y"], r"^result\[1\]: expected a str, got a MyStr$")
    _fails({MyStr("a"): 1}, {"a": 1}, r"key 'a' is a MyStr")


def test_bool_key_cannot_stand_for_int_key():
    _fails({True: "x"}, {1: "x"}, r"^result: missing keys \[1\], unexpected keys \[True\]$")
    _fails({1.0: "x"}, {1: "x"}, r"missing keys \[1\], unexpected keys \[1\.0\]")
    _fails({(1, True): 0}, {(1, 1): 0}, r"missing keys \[\(1, 1\)\], unexpected keys \[\(1, True\)\]")


def test_set_members_must_have_exact_types():
    _fails({True, 2}, {1, 2}, r"^result: missing \[1\], unexpected \[True\]$")
    _fails(frozenset({0.0}), frozenset({0}), r"missing \[0\], unexpected \[0\.0\]")
    _fails({1, 2}, {1, 2, 3}, r"^result: missing \[3\], unexpected \[\]$")
    _fails({1, 2}, frozenset({1, 2}), r"expected a frozenset, got a set")


def test_missing_and_extra_keys():
    _fails({"a": 1, "c": 3}, {"a": 1, "b": 2}, r"^result: missing keys \['b'\], unexpected keys \['c'\]$")


def test_wrong_value_and_length():
    _fails("abd", "abc", r"^result: expected 'abc', got 'abd'$")
    _fails([1, 2], [1, 2, 3], r"^result: expected 3 items, got 2$")
    _fails([1, 2, 3, 4], [1, 2, 3], r"^result: expected 3 items, got 4$")
    _fails(None, 0, r"expected a int, got a NoneType")


def test_nested_paths_in_the_message():
    expected = {"vocab": {"a": [1, {"b": (2, 3)}]}}
    actual = {"vocab": {"a": [1, {"b": (2, 4)}]}}
    _fails(actual, expected, r"^result\['vocab'\]\['a'\]\[1\]\['b'\]\[1\]: expected 3, got 4$")
    _fails({(1, "x"): [0, 5]}, {(1, "x"): [0, 6]}, r"^result\[\(1, 'x'\)\]\[1\]: expected 6, got 5$")
    _fails([0, 1], [0, 2], r"^split_words\('a b'\)\[1\]: expected 2, got 1$", name="split_words('a b')")


def test_long_values_are_shortened():
    with pytest.raises(AssertionError) as info:
        check_same("a" * 1000, "b" * 1000)
    assert len(str(info.value)) < 200 and "..." in str(info.value)


def test_expected_must_be_plain_data():
    with pytest.raises(TypeError, match=r"check_same: expected value of type Liar is not plain data"):
        check_same(1, Liar())
    with pytest.raises(TypeError, match=r"check_same: expected value of type int64 is not plain data"):
        check_same(1, np.int64(1))
    with pytest.raises(TypeError, match=r"check_same: expected: key .* is a Liar"):
        check_same({"a": 1}, {Liar(): 1})


# ---------------------------------------------------------------------------
# The hidden tests' path: each side on its own copies, then the comparison
# ---------------------------------------------------------------------------


def check_against(student, reference, cases, *, name):
    """What a hidden test does, in one call: run_cases on each side, check_outcomes."""
    expected, _ = run_cases(reference, cases)
    actual, _ = run_cases(student, cases)
    check_outcomes(HiddenTest(name, name, lambda: (reference, cases)), cases, expected, actual)


def _sort_in_place(xs):
    xs.sort()
    return xs  # returns its argument: an alias a student could tamper with


def test_check_against_passes_and_fails():
    cases = [(([3, 1, 2],), {}), (([],), {}), ((["b", "a"],), {})]
    check_against(sorted, _sort_in_place, cases, name="sort")
    with pytest.raises(AssertionError, match=r"^sort\(\[3, 1, 2\]\) \[case 0\]\[0\]: expected 1, got 3$"):
        check_against(list, _sort_in_place, cases, name="sort")
    with pytest.raises(AssertionError, match=r"^sort\(\['b', 'a'\]\) \[case 2\]"):
        check_against(lambda xs: sorted(xs) if xs and xs[0] != "b" else xs, _sort_in_place, cases, name="sort")


def test_check_against_shows_keyword_arguments():
    with pytest.raises(AssertionError, match=r"^f\('a b', lowercase=True\) \[case 0\]: expected 1, got 2$"):
        check_against(lambda t, lowercase: 2, lambda t, lowercase: 1, [(("a b",), {"lowercase": True})], name="f")


def test_a_mutating_student_cannot_change_the_reference_result():
    def cheat(xs):
        xs.clear()  # without copies this would empty the reference's (aliased) result
        return []

    cases = [(([3, 1, 2],), {})]
    with pytest.raises(AssertionError, match=r"expected 3 items, got 0"):
        check_against(cheat, _sort_in_place, cases, name="sort")
    assert cases == [(([3, 1, 2],), {})]  # and the cases themselves are untouched


def test_copies_are_deep_and_cover_keyword_arguments():
    def reference(counts, *, extra):
        return {"counts": counts, "extra": extra}  # aliases of both arguments

    def cheat(counts, *, extra):
        counts["a"][0] = 99
        extra.append("x")
        return {"counts": {"a": [99]}, "extra": ["x"]}

    cases = [(({"a": [1]},), {"extra": []})]
    with pytest.raises(AssertionError, match=r"\['counts'\]\['a'\]\[0\]: expected 1, got 99"):
        check_against(cheat, reference, cases, name="f")
    assert cases == [(({"a": [1]},), {"extra": []})]


def test_student_and_reference_get_separate_copies():
    seen = []

    def record(xs):
        seen.append(xs)
        return len(xs)

    arg = [1, 2]
    check_against(record, record, [((arg,), {})], name="len")
    assert seen[0] == seen[1] == arg
    assert seen[0] is not seen[1] and arg is not seen[0] and arg is not seen[1]


# ---------------------------------------------------------------------------
# Seeded random inputs
# ---------------------------------------------------------------------------


def test_random_texts_is_deterministic_per_seed():
    assert random_texts(7) == random_texts(7)
    assert random_texts(7, n=3, max_len=5, alphabet="xy") == random_texts(7, n=3, max_len=5, alphabet="xy")
    assert len({tuple(random_texts(s)) for s in range(20)}) == 20


def test_random_texts_pinned_value():
    # Released exercises reproduce failing cases from the seed: the values must not drift.
    assert random_texts(0, n=3, max_len=8) == ["cé日字Ωñ", ",日dßd", "eedc"]


def test_random_texts_shape_and_alphabet():
    for seed in range(50):
        texts = random_texts(seed, n=4, max_len=6, alphabet="ab ")
        assert len(texts) == 4
        assert all(type(t) is str and len(t) <= 6 and set(t) <= set("ab ") for t in texts)


def test_random_texts_is_never_all_empty():
    # With one text of at most one character, about half of the raw draws are empty.
    for seed in range(300):
        assert any(random_texts(seed, n=1, max_len=1))
        assert any(random_texts(seed, n=2, max_len=1, alphabet=" "))
        texts = random_texts(seed, n=1, max_len=1, alphabet="q")
        assert texts == ["q"]


def test_random_texts_covers_non_ascii():
    chars = set("".join(t for s in range(30) for t in random_texts(s)))
    assert any(ord(c) > 0xFFFF for c in chars)  # an emoji outside the BMP
    assert {"\n", " ", "'"} <= chars


def test_random_text_uses_the_given_rng():
    import random

    assert random_text(random.Random(3)) == random_text(random.Random(3))
    assert set(random_text(random.Random(3), alphabet=ASCII_LETTERS, max_len=50)) <= set(ASCII_LETTERS)


def test_random_corpus_is_deterministic_per_seed():
    assert random_corpus(5) == random_corpus(5)
    assert random_corpus(1, n_texts=2, n_words=6) == ["thqure\täorst o\tisth\n", "aäan\nREA  "]
    assert len({tuple(random_corpus(s)) for s in range(20)}) == 20


def test_random_corpus_always_has_a_word():
    for seed in range(300):
        corpus = random_corpus(seed, n_texts=2, n_words=1)
        assert len(corpus) == 2
        assert any(split_words(t) for t in corpus)
        WordTokenizer().train(corpus)  # trainable: never raises "no words"
    assert random_corpus(0, n_texts=3, n_words=0) == ["the", "", ""]


def test_random_prose_has_contractions_digits_and_ties():
    import random

    text = " ".join(random_prose(random.Random(s)) for s in range(40))
    words = split_words(text)
    assert any("'" in w for w in words)
    assert any(any(c.isdigit() for c in w) for w in words)
    assert any(w.isupper() and len(w) > 1 for w in words)
    assert {"\t", "\n"} <= set(text)


def test_generators_are_independent_of_hash_randomisation():
    code = (
        "import json, random; from tokgrade.grading import random_corpus, random_texts; "
        "print(json.dumps([random_corpus(3), random_texts(3)]))"
    )
    outputs = set()
    for hashseed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hashseed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(out.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop()) == [random_corpus(3), random_texts(3)]


def test_generator_input_checks():
    with pytest.raises(ValueError, match=r"random_texts needs n >= 1 and max_len >= 1, not n=0"):
        random_texts(0, n=0)
    with pytest.raises(ValueError, match=r"max_len=0"):
        random_texts(0, max_len=0)
    with pytest.raises(ValueError, match=r"alphabet must be a non-empty str"):
        random_texts(0, alphabet="")
    with pytest.raises(ValueError, match=r"random_corpus needs n_texts >= 1, not 0"):
        random_corpus(0, n_texts=0)
