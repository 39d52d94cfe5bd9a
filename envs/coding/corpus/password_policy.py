"""Password policy checks for account sign-up forms.

check_password() returns a list of human-readable problems, empty when the
password is acceptable, so a form can show every issue at once.
"""

SPECIALS = set("!@#$%^&*()-_=+[]{};:,.<>/?")
COMMON = {"password", "123456", "qwerty", "letmein", "admin", "welcome"}


def check_password(password, min_length=10, username=None):
    """Return the list of policy violations for password."""
    problems = []
    if len(password) < min_length:
        problems.append(f"must be at least {min_length} characters")
    if not any(char.islower() for char in password):
        problems.append("must contain a lowercase letter")
    if not any(char.isupper() for char in password):
        problems.append("must contain an uppercase letter")
    if not any(char.isdigit() for char in password):
        problems.append("must contain a digit")
    if not any(char in SPECIALS for char in password):
        problems.append("must contain a special character")
    if password.lower() in COMMON:
        problems.append("is too common")
    if username and username.lower() in password.lower():
        problems.append("must not contain the username")
    if has_run(password, 3):
        problems.append("must not repeat a character 3 or more times in a row")
    return problems


def has_run(text, length):
    """Return True if some character repeats at least length times consecutively."""
    run = 1
    for previous, current in zip(text, text[1:]):
        run = run + 1 if current == previous else 1
        if run >= length:
            return True
    return False


def strength(password):
    """Return a score from 0 to 4: one point per character class, plus one for length >= 14,
    capped at 4 and forced to 0 for common passwords."""
    if password.lower() in COMMON:
        return 0
    classes = sum([
        any(c.islower() for c in password),
        any(c.isupper() for c in password),
        any(c.isdigit() for c in password),
        any(c in SPECIALS for c in password),
    ])
    bonus = 1 if len(password) >= 14 else 0
    return min(classes + bonus, 4)
