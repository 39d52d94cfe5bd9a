"""agentgym.features.hash_tokens: shape, normalisation, determinism across processes."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from agentgym.errors import ConfigError
from agentgym.features import hash_tokens, tokens
from agentgym.tasks import stable_hash


def test_tokens_are_words_numbers_marks_and_bigrams():
    assert tokens("Run pytest -x 42") == ["run", "pytest", "-", "x", "42", "run pytest", "pytest -", "- x", "x 42"]


def test_unit_norm_float32_and_zero_for_empty_text():
    v = hash_tokens("edit solution.py line 3", 128)
    assert v.dtype == np.float32 and v.shape == (128,) and np.isclose(np.linalg.norm(v), 1.0)
    assert not hash_tokens("", 128).any() and not hash_tokens("   \n", 16).any()


def test_similar_texts_are_closer_than_different_ones():
    a, b, c = (hash_tokens(t, 256) for t in ["open file a.py", "open file b.py", "submit the answer now"])
    assert a @ b > a @ c


def test_results_are_fresh_arrays():
    v = hash_tokens("cached text", 32)
    v[:] = 0
    assert hash_tokens("cached text", 32).any()


def test_long_texts_and_odd_characters():
    v = hash_tokens("é\x00\ufffd " * 5000, 64)
    assert np.isfinite(v).all() and np.isclose(np.linalg.norm(v), 1.0)


def test_same_vector_in_another_process():
    code = "from agentgym.features import hash_tokens; print(hash_tokens('def add(a, b): return a + b', 64).tolist())"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "123"},
    )
    assert eval(out.stdout) == hash_tokens("def add(a, b): return a + b", 64).tolist()


@pytest.mark.parametrize("dim", [0, -1, 2.5, True])
def test_bad_dim_is_echoed(dim):
    with pytest.raises(ConfigError, match=f"dim={dim!r}"):
        hash_tokens("x", dim)


def test_vectorised_hashing_equals_adding_one_token_at_a_time():
    # checkpoints trained on the old loop must see the same features: pin the definition
    rng = np.random.default_rng(0)
    words = ["def", "x", "(", ")", "return", "1", "+", "foo_bar", "==", "\n", "assert", "patch", "-", "99", "é"]
    for _ in range(300):
        text = " ".join(rng.choice(words, size=int(rng.integers(0, 200))))
        for dim in (1, 7, 128):
            vec = np.zeros(dim, dtype=np.float32)
            for tok in tokens(text):
                h = stable_hash(tok)
                vec[h % dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = float(np.sqrt(np.dot(vec, vec)))
            expected = vec / norm if norm > 0 else vec
            assert np.array_equal(hash_tokens(text, dim), expected)
