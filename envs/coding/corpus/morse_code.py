"""International Morse code: encoding, decoding and transmission timing.

Letters are separated by a space and words by " / " in the text form.
"""

CODE = {
    "A": ".-", "B": "-...", "C": "-.-.", "D": "-..", "E": ".", "F": "..-.",
    "G": "--.", "H": "....", "I": "..", "J": ".---", "K": "-.-", "L": ".-..",
    "M": "--", "N": "-.", "O": "---", "P": ".--.", "Q": "--.-", "R": ".-.",
    "S": "...", "T": "-", "U": "..-", "V": "...-", "W": ".--", "X": "-..-",
    "Y": "-.--", "Z": "--..", "0": "-----", "1": ".----", "2": "..---",
    "3": "...--", "4": "....-", "5": ".....", "6": "-....", "7": "--...",
    "8": "---..", "9": "----.", ".": ".-.-.-", ",": "--..--", "?": "..--..",
}
DECODE = {symbol: char for char, symbol in CODE.items()}


def encode(text):
    """Encode text; unsupported characters raise ValueError."""
    words = []
    for word in text.upper().split():
        letters = []
        for char in word:
            if char not in CODE:
                raise ValueError(f"cannot encode {char!r}")
            letters.append(CODE[char])
        words.append(" ".join(letters))
    return " / ".join(words)


def decode(morse):
    """Decode Morse text produced by encode(); unknown symbols raise ValueError."""
    words = []
    for word in morse.strip().split("/"):
        letters = []
        for symbol in word.split():
            if symbol not in DECODE:
                raise ValueError(f"unknown Morse symbol {symbol!r}")
            letters.append(DECODE[symbol])
        if letters:
            words.append("".join(letters))
    return " ".join(words)


def duration_units(morse):
    """Return the transmission length in dot units.

    dot = 1, dash = 3, gap inside a letter = 1, between letters = 3,
    between words = 7.
    """
    total = 0
    words = [word.split() for word in morse.split("/")]
    words = [word for word in words if word]
    for w, letters in enumerate(words):
        if w > 0:
            total += 7
        for i, symbol in enumerate(letters):
            if i > 0:
                total += 3
            total += sum(1 if mark == "." else 3 for mark in symbol)
            total += len(symbol) - 1
    return total


def words_per_minute_to_dot_ms(wpm):
    """Return the dot length in milliseconds for a speed in words per minute (PARIS standard)."""
    if wpm <= 0:
        raise ValueError("speed must be positive")
    return 1200 / wpm
