"""Properties of the resume check: a diff is empty exactly when nothing changed,
and every changed leaf is reported once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tcecd.config.fingerprint import diff_fingerprints

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "b", "uci"])
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["x", "y", "z"]), inner, max_size=3)
    ),
    max_leaves=10,
)
fingerprints = st.dictionaries(st.sampled_from(["engines", "pairing", "openings"]), json_values)


@settings(max_examples=200, deadline=None)
@given(fingerprints, fingerprints)
def test_diff_is_empty_exactly_when_equal(old: dict[str, object], new: dict[str, object]) -> None:
    diff = diff_fingerprints(old, new)
    assert (diff == []) == (old == new)
    assert diff_fingerprints(old, old) == []
    assert len(diff) == len(set(diff))  # no line twice


@settings(max_examples=100, deadline=None)
@given(fingerprints, st.sampled_from(["engines", "pairing", "openings"]), scalars, scalars)
def test_one_changed_leaf_is_one_line(
    base: dict[str, object], key: str, before: object, after: object
) -> None:
    old = {**base, key: {"leaf": before}}
    new = {**base, key: {"leaf": after}}
    diff = diff_fingerprints(old, new)
    if before == after:
        assert diff == []
    else:
        assert len(diff) == 1
        assert diff[0].startswith(f"{key}.leaf: ")
