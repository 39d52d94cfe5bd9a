from prefix_trie import Trie

VISIBLE = ["test_insert_and_contains", "test_complete_basic", "test_count"]


def test_insert_and_contains():
    trie = Trie(["car", "cart", "cat"])
    assert "car" in trie
    assert "cart" in trie
    assert "ca" not in trie
    assert "carts" not in trie
    assert len(trie) == 3


def test_empty_trie():
    trie = Trie()
    assert len(trie) == 0
    assert trie.complete("") == []
    assert trie.has_prefix("") is True
    assert trie.has_prefix("a") is False
    assert trie.count("a") == 0


def test_count():
    trie = Trie(["go", "go", "gone"])
    assert trie.count("go") == 2
    assert trie.count("gone") == 1
    assert trie.count("g") == 0
    assert trie.count("goner") == 0
    assert len(trie) == 2


def test_has_prefix():
    trie = Trie(["apple"])
    assert trie.has_prefix("app") is True
    assert trie.has_prefix("apple") is True
    assert trie.has_prefix("apples") is False
    assert trie.has_prefix("b") is False


def test_complete_basic():
    trie = Trie(["car", "cart", "cat", "dog"])
    assert trie.complete("ca") == ["car", "cart", "cat"]
    assert trie.complete("car") == ["car", "cart"]
    assert trie.complete("d") == ["dog"]
    assert trie.complete("x") == []


def test_complete_orders_by_frequency():
    trie = Trie(["the", "then", "then", "they", "they", "they", "theme"])
    assert trie.complete("the") == ["they", "then", "the", "theme"]
    assert trie.complete("the", limit=2) == ["they", "then"]
    assert trie.complete("the", limit=0) == []


def test_complete_everything():
    trie = Trie(["b", "a", "ab"])
    assert trie.complete("") == ["a", "ab", "b"]


def test_remove():
    trie = Trie(["tea", "tea", "ten"])
    assert trie.remove("tea") == 2
    assert "tea" not in trie
    assert len(trie) == 1
    assert trie.remove("tea") == 0
    assert trie.remove("te") == 0
    assert trie.remove("zzz") == 0
    assert trie.complete("te") == ["ten"]
    assert len(trie) == 1


def test_reinsert_after_remove():
    trie = Trie(["x"])
    trie.remove("x")
    trie.insert("x")
    assert trie.count("x") == 1
    assert len(trie) == 1


def test_empty_word():
    trie = Trie([""])
    assert "" in trie
    assert len(trie) == 1
    assert trie.complete("") == [""]


def test_longest_prefix_of():
    trie = Trie(["a", "ab", "abcd"])
    assert trie.longest_prefix_of("abcde") == "abcd"
    assert trie.longest_prefix_of("abc") == "ab"
    assert trie.longest_prefix_of("a") == "a"
    assert trie.longest_prefix_of("b") == ""
    assert trie.longest_prefix_of("") == ""
    assert Trie(["ba"]).longest_prefix_of("bb") == ""
