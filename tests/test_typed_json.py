"""tokgrade.typed_json: exact types survive the round trip; what is not plain data becomes
Opaque; hostile text is refused with ValueError, never anything worse."""

from __future__ import annotations

import json
import math
from collections import Counter, OrderedDict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokgrade.grading import check_same
from tokgrade.typed_json import MAX_DEPTH, Opaque, dumps_value, from_json, loads_value, to_json

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(), st.binary(),
                    st.floats(allow_nan=False))
hashables = st.recursive(scalars, lambda inner: st.one_of(
    st.tuples(inner, inner), st.frozensets(inner, max_size=4)), max_leaves=8)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.sets(hashables, max_size=4),
    st.frozensets(hashables, max_size=4), st.dictionaries(hashables, inner, max_size=4)),
    max_leaves=20)


@given(values)
def test_round_trip_keeps_exact_types_and_values(value):
    back = loads_value(dumps_value(value))
    check_same(back, value, rel_tol=0, abs_tol=0)
    assert dumps_value(back) == dumps_value(value)


def test_floats_are_exact_and_nan_inf_survive():
    for x in (0.1, -0.0, 1e-320, math.inf, -math.inf, 1 / 3):
        assert loads_value(dumps_value(x)) == x and str(loads_value(dumps_value(x))) == str(x)
    assert math.isnan(loads_value(dumps_value(math.nan)))


def test_tuple_true_and_one_stay_apart():
    assert type(loads_value(dumps_value((1, 2)))) is tuple
    keys = [type(k) for k in loads_value(dumps_value({True: "a", 2: "b", 3.0: "c"}))]
    assert keys == [bool, int, float]
    back = loads_value(dumps_value([True, 1]))
    assert [type(v) for v in back] == [bool, int]


@pytest.mark.parametrize("value, name", [
    (Counter("ab"), "Counter"), (OrderedDict(a=1), "OrderedDict"), (np.int64(3), "int64"),
    (np.float64(0.5), "float64"), (object(), "object"), (iter([]), "list_iterator"),
])
def test_what_is_not_plain_data_becomes_opaque(value, name):
    back = loads_value(dumps_value(value))
    assert type(back) is Opaque and back.type_name == name


def test_opaque_fails_check_same_with_a_useful_message():
    with pytest.raises(AssertionError, match=r"expected a dict, got a Counter"):
        check_same(loads_value(dumps_value(Counter("ab"))), {"a": 1, "b": 1})
    with pytest.raises(AssertionError, match=r"got a float64 \(a NumPy number\? convert it with float"):
        check_same(loads_value(dumps_value(np.float64(0.5))), 0.5)
    with pytest.raises(AssertionError, match=r"key Opaque.* is a Counter"):
        check_same({Opaque("Counter"): 1}, {1: 1})  # a key that was not plain data


def test_a_lying_subclass_is_opaque_not_its_base():
    class Liar(str):
        def __eq__(self, other):
            return True
        __hash__ = str.__hash__

    assert loads_value(dumps_value(Liar("x"))) == Opaque("Liar", False)


def test_writing_never_fails_on_deep_or_cyclic_values():
    cyclic: list = []
    cyclic.append(cyclic)
    data = to_json(cyclic)  # bounded: the deep end is opaque
    text = json.dumps(data)
    assert "too deep" in text
    deep: list = []
    for _ in range(MAX_DEPTH + 10):
        deep = [deep]
    assert "too deep" in dumps_value(deep)


@pytest.mark.parametrize("text", [
    "NaN", "[Infinity]", '{"float": 1.5}', '{"bytes": "zz"}', '{"set": [[1]]}',
    '{"dict": [[[1], 2]]}', '{"dict": [[1]]}', '{"tuple": [1], "set": []}', '{"what": 1}',
    '{"opaque": 3}', "[" * 100_000 + "]" * 100_000, '{"float": "0x1.8p+1", "x": 1}', "1.5",
])
def test_hostile_text_is_refused_with_value_error(text):
    with pytest.raises(ValueError):
        loads_value(text)


def test_too_large_text_is_refused():
    with pytest.raises(ValueError, match="at most"):
        loads_value(" " * (256 * 2**20 + 1))
    with pytest.raises(ValueError):
        loads_value(b"[1]")  # bytes, not str


def test_from_json_refuses_deep_structures():
    data: list = []
    for _ in range(MAX_DEPTH + 5):
        data = [data]
    with pytest.raises(ValueError, match="deeply"):
        from_json(data)


def test_fractions_travel_exactly_and_compare_exactly():
    from fractions import Fraction

    value = {("a", "b"): Fraction(2, 6), ("c", "d"): Fraction(-1, 7)}
    back = loads_value(dumps_value(value))
    check_same(back, value)
    assert type(back[("a", "b")]) is Fraction
    with pytest.raises(AssertionError, match="expected a Fraction, got a float"):
        check_same(1 / 3, Fraction(1, 3))
    with pytest.raises(AssertionError, match="expected Fraction"):
        check_same(Fraction(1, 3) + Fraction(1, 10**12), Fraction(1, 3))
    with pytest.raises(ValueError):
        loads_value('{"fraction": [1, 0]}')
