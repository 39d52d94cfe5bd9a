"""Classical substitution ciphers: Caesar shift, ROT13, Vigenere and Atbash.

Only ASCII letters are transformed; case is preserved and every other
character passes through unchanged.
"""

ALPHABET_SIZE = 26


def shift_char(char, shift):
    """Shift one ASCII letter by shift positions, wrapping around the alphabet."""
    if "a" <= char <= "z":
        base = ord("a")
    elif "A" <= char <= "Z":
        base = ord("A")
    else:
        return char
    return chr(base + (ord(char) - base + shift) % ALPHABET_SIZE)


def caesar(text, shift):
    """Encrypt text with a Caesar shift (use a negative shift to decrypt)."""
    return "".join(shift_char(char, shift) for char in text)


def rot13(text):
    """Apply ROT13, which is its own inverse."""
    return caesar(text, 13)


def _key_shifts(key):
    shifts = [ord(char.lower()) - ord("a") for char in key if char.isalpha()]
    if not shifts:
        raise ValueError("key must contain at least one letter")
    return shifts


def vigenere(text, key, decrypt=False):
    """Encrypt (or decrypt) text with a Vigenere key.

    The key advances only on letters, so spaces and punctuation do not
    consume key characters.
    """
    shifts = _key_shifts(key)
    result = []
    position = 0
    for char in text:
        if char.isascii() and char.isalpha():
            shift = shifts[position % len(shifts)]
            result.append(shift_char(char, -shift if decrypt else shift))
            position += 1
        else:
            result.append(char)
    return "".join(result)


def atbash(text):
    """Mirror the alphabet: a <-> z, b <-> y, and so on."""
    out = []
    for char in text:
        if "a" <= char <= "z":
            out.append(chr(ord("z") - (ord(char) - ord("a"))))
        elif "A" <= char <= "Z":
            out.append(chr(ord("Z") - (ord(char) - ord("A"))))
        else:
            out.append(char)
    return "".join(out)


def crack_caesar(ciphertext, expected_word):
    """Return the smallest shift in 0..25 whose decryption contains expected_word, or None."""
    for shift in range(ALPHABET_SIZE):
        if expected_word in caesar(ciphertext, -shift):
            return shift
    return None
