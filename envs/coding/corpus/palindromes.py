"""Palindrome checks for words and phrases, ignoring case, spaces and punctuation."""


def normalize(text):
    """Keep only letters and digits, lowercased."""
    return "".join(char.lower() for char in text if char.isalnum())


def is_palindrome(text):
    """Return True if text reads the same backwards once normalized."""
    cleaned = normalize(text)
    left, right = 0, len(cleaned) - 1
    while left < right:
        if cleaned[left] != cleaned[right]:
            return False
        left += 1
        right -= 1
    return True


def longest_palindrome(text):
    """Return the longest palindromic substring (exact characters); the first one on ties."""
    best_start, best_length = 0, 0
    for centre in range(len(text)):
        for left, right in ((centre, centre), (centre, centre + 1)):
            while left >= 0 and right < len(text) and text[left] == text[right]:
                left -= 1
                right += 1
            length = right - left - 1
            if length > best_length:
                best_start, best_length = left + 1, length
    return text[best_start:best_start + best_length]


def can_form_palindrome(text):
    """Return True if the normalized characters can be rearranged into a palindrome."""
    odd = set()
    for char in normalize(text):
        odd ^= {char}
    return len(odd) <= 1
