"""Lines and documents of a text without CR are found by a faster path than those of a text
with CR: both must say the same of every LF-only text."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from generator.yamlio import lines

# the separators and line ends that decide a split, among ordinary text
PIECES = st.sampled_from(["---", "--- ", "---\t# c", "----", " ---", "a: 1", "b", "\n", "\n", "#", "-", " "])


def general(text: str) -> list[tuple[int, str]]:
    """``split_documents`` as it reads a text with CR (the look-behind pattern, breaks counted one by one)."""
    out, start, first = [], 0, 0
    for match in lines._SEPARATOR.finditer(text):
        at = match.start()
        if at == 0:
            continue
        out.append((first, text[start : at - 1]))
        first += len(lines.BREAK.findall(text, start, at))
        start = at
    out.append((first, text[start:]))
    return out


@given(st.lists(PIECES, max_size=40).map("".join))
def test_an_lf_only_text_splits_as_the_general_path_splits_it(text):
    assert list(lines.split_documents(text)) == general(text)
    assert lines.count(text) == len(re.findall(r"\r\n|[\r\n]", text))


@given(st.lists(st.sampled_from(["---", "a", "\r", "\n", "\r\n", " "]), max_size=30).map("".join), st.data())
def test_count_of_a_slice_counts_each_break_once(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert lines.count(text, start, end) == len(lines.BREAK.findall(text, start, end))


def test_a_separator_at_the_end_of_an_lf_text_splits():
    assert list(lines.split_documents("a: 1\n---")) == [(0, "a: 1"), (1, "---")]
    assert list(lines.split_documents("a: 1\n--- x\nb: 2\n")) == [(0, "a: 1"), (1, "--- x\nb: 2\n")]
