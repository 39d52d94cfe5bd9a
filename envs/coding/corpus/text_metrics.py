"""Counting words, sentences and syllables, and readability scores for English text."""

import re

_WORD_RE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_SENTENCE_END_RE = re.compile(r"[.!?]+")
VOWELS = "aeiouy"


def words(text):
    """Return the words of text (letters with an optional apostrophe part)."""
    return _WORD_RE.findall(text)


def sentence_count(text):
    """Count sentences as runs of . ! ? ; trailing text without one counts too."""
    pieces = [piece for piece in _SENTENCE_END_RE.split(text) if piece.strip()]
    return len(pieces)


def syllables(word):
    """Estimate the syllables in a word by counting vowel groups.

    A silent final 'e' is dropped (but not in '-le' endings), and every word
    has at least one syllable.
    """
    word = word.lower()
    count = 0
    previous_vowel = False
    for char in word:
        is_vowel = char in VOWELS
        if is_vowel and not previous_vowel:
            count += 1
        previous_vowel = is_vowel
    if word.endswith("e") and not word.endswith("le") and count > 1:
        count -= 1
    return max(count, 1)


def word_frequencies(text, top=None):
    """Return (word, count) pairs, lowercase, most frequent first then alphabetical."""
    counts = {}
    for word in words(text):
        key = word.lower()
        counts[key] = counts.get(key, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return ranked if top is None else ranked[:top]


def flesch_reading_ease(text):
    """Return the Flesch reading-ease score rounded to one decimal.

    206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words)
    """
    found = words(text)
    if not found:
        raise ValueError("text has no words")
    sentences = max(sentence_count(text), 1)
    total_syllables = sum(syllables(word) for word in found)
    score = 206.835 - 1.015 * (len(found) / sentences) - 84.6 * (total_syllables / len(found))
    return round(score, 1)


def average_word_length(text):
    """Return the mean number of letters per word, or 0.0 for no words."""
    found = words(text)
    if not found:
        return 0.0
    return sum(len(word.replace("'", "")) for word in found) / len(found)
