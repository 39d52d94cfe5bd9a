import pytest

from text_metrics import average_word_length, flesch_reading_ease, sentence_count, syllables, word_frequencies, words

VISIBLE = ["test_words", "test_sentence_count", "test_syllables_basic"]


def test_words():
    assert words("Hello, world!") == ["Hello", "world"]
    assert words("It's a dog's life") == ["It's", "a", "dog's", "life"]
    assert words("3 cats and 42 dogs") == ["cats", "and", "dogs"]
    assert words("") == []


def test_sentence_count():
    assert sentence_count("One. Two! Three?") == 3
    assert sentence_count("Wait... what?!") == 2
    assert sentence_count("No terminator") == 1
    assert sentence_count("") == 0
    assert sentence_count("...") == 0


def test_syllables_basic():
    assert syllables("cat") == 1
    assert syllables("water") == 2
    assert syllables("banana") == 3
    assert syllables("rhythm") == 1


def test_syllables_silent_e_and_le():
    assert syllables("make") == 1
    assert syllables("the") == 1
    assert syllables("table") == 2
    assert syllables("little") == 2
    assert syllables("recipe") == 2
    assert syllables("be") == 1


def test_syllables_vowel_groups():
    assert syllables("beautiful") == 3
    assert syllables("queue") == 1
    assert syllables("EASY") == 2
    assert syllables("psst") == 1


def test_word_frequencies():
    text = "the cat and the hat and the bat"
    assert word_frequencies(text) == [("the", 3), ("and", 2), ("bat", 1), ("cat", 1), ("hat", 1)]
    assert word_frequencies(text, top=2) == [("the", 3), ("and", 2)]


def test_word_frequencies_case_and_empty():
    assert word_frequencies("Go go GO stop") == [("go", 3), ("stop", 1)]
    assert word_frequencies("") == []
    assert word_frequencies("a b", top=0) == []


def test_flesch_simple_text():
    assert flesch_reading_ease("The cat sat on the mat.") == 116.1
    assert flesch_reading_ease("The cat sat on the mat") == 116.1


def test_flesch_harder_text():
    text = "Complicated terminology necessitates considerable concentration."
    assert flesch_reading_ease(text) == -187.4
    assert flesch_reading_ease("Go. Run. Stop.") == 121.2


def test_flesch_no_words():
    with pytest.raises(ValueError):
        flesch_reading_ease("123 456.")


def test_average_word_length():
    assert average_word_length("a bb ccc") == 2.0
    assert average_word_length("don't stop") == 4.0
    assert average_word_length("") == 0.0
    assert average_word_length("hello") == 5.0
