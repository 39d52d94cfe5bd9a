from password_policy import check_password, has_run, strength

VISIBLE = ["test_good_password", "test_too_short", "test_has_run"]


def test_good_password():
    assert check_password("Tr0ub4dor&3x") == []
    assert check_password("Abcdef1!", min_length=8) == []


def test_too_short():
    assert check_password("Ab1!xyzw9") == ["must be at least 10 characters"]
    assert check_password("Ab1!xyzw9Q") == []
    assert check_password("Ab1!", min_length=4) == []


def test_missing_classes():
    assert check_password("abcdefgh1!") == ["must contain an uppercase letter"]
    assert check_password("ABCDEFGH1!") == ["must contain a lowercase letter"]
    assert check_password("Abcdefghi!") == ["must contain a digit"]
    assert check_password("Abcdefghi1") == ["must contain a special character"]


def test_all_problems_in_order():
    assert check_password("") == [
        "must be at least 10 characters",
        "must contain a lowercase letter",
        "must contain an uppercase letter",
        "must contain a digit",
        "must contain a special character",
    ]


def test_common_password():
    assert "is too common" in check_password("Password")
    assert "is too common" not in check_password("Password1!")


def test_username_check():
    assert check_password("Xalice99!zZ", username="Alice") == ["must not contain the username"]
    assert check_password("Xalice99!zZ", username="bob") == []
    assert check_password("Xalice99!zZ", username="") == []


def test_repeated_characters():
    assert check_password("Abc111def!") == ["must not repeat a character 3 or more times in a row"]
    assert check_password("Abc11d1ef!") == []


def test_has_run():
    assert has_run("aaa", 3) is True
    assert has_run("aab", 3) is False
    assert has_run("abbb", 3) is True
    assert has_run("ab", 2) is False
    assert has_run("abb", 2) is True
    assert has_run("", 2) is False
    assert has_run("xyyxyyy", 3) is True


def test_strength_classes():
    assert strength("abc") == 1
    assert strength("abcD") == 2
    assert strength("abcD1") == 3
    assert strength("abcD1!") == 4
    assert strength("") == 0


def test_strength_length_bonus_and_common():
    assert strength("abcdefghijklmn") == 2
    assert strength("abcdefghijklm") == 1
    assert strength("aB1!aB1!aB1!aB") == 4
    assert strength("qwerty") == 0
    assert strength("QWERTY") == 0
