from case_conversion import detect_style, split_words, to_camel, to_constant, to_kebab, to_pascal, to_snake

VISIBLE = ["test_split_camel", "test_to_snake", "test_to_camel"]


def test_split_camel():
    assert split_words("fooBar") == ["foo", "bar"]
    assert split_words("FooBarBaz") == ["foo", "bar", "baz"]
    assert split_words("x") == ["x"]


def test_split_separators():
    assert split_words("foo_bar-baz qux.quux") == ["foo", "bar", "baz", "qux", "quux"]
    assert split_words("__private__") == ["private"]
    assert split_words("a--b") == ["a", "b"]
    assert split_words("") == []


def test_split_acronyms():
    assert split_words("HTTPServer") == ["http", "server"]
    assert split_words("parseXMLDocument") == ["parse", "xml", "document"]
    assert split_words("getID") == ["get", "id"]
    assert split_words("ABC") == ["abc"]
    assert split_words("HTTPOk") == ["http", "ok"]


def test_split_digits():
    assert split_words("utf8Codec") == ["utf8", "codec"]
    assert split_words("version2Beta") == ["version2", "beta"]
    assert split_words("md5") == ["md5"]


def test_to_snake():
    assert to_snake("fooBarBaz") == "foo_bar_baz"
    assert to_snake("HTTPServerError") == "http_server_error"
    assert to_snake("already_snake") == "already_snake"


def test_to_kebab():
    assert to_kebab("fooBar") == "foo-bar"
    assert to_kebab("CONSTANT_VALUE") == "constant-value"


def test_to_constant():
    assert to_constant("maxRetryCount") == "MAX_RETRY_COUNT"
    assert to_constant("api-key") == "API_KEY"


def test_to_pascal():
    assert to_pascal("user_account") == "UserAccount"
    assert to_pascal("http-request") == "HttpRequest"
    assert to_pascal("") == ""


def test_to_camel():
    assert to_camel("user_account_id") == "userAccountId"
    assert to_camel("HTTPServer") == "httpServer"
    assert to_camel("single") == "single"
    assert to_camel("") == ""
    assert to_camel("__") == ""


def test_detect_style():
    assert detect_style("foo_bar") == "snake"
    assert detect_style("FOO_BAR") == "constant"
    assert detect_style("Foo_bar") == "unknown"
    assert detect_style("foo-bar") == "kebab"
    assert detect_style("Foo-Bar") == "unknown"
    assert detect_style("foo-bar_baz") == "unknown"
    assert detect_style("fooBar") == "camel"
    assert detect_style("FooBar") == "pascal"
    assert detect_style("") == "unknown"


def test_round_trips():
    for name in ["parse_http_response", "load_user_v2", "max_retry_count"]:
        assert to_snake(to_camel(name)) == name
        assert to_snake(to_pascal(name)) == name
        assert to_snake(to_kebab(name)) == name
