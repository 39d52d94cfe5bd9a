import pytest

from ipv4_utils import format_ipv4, host_range, in_network, is_private, parse_cidr, parse_ipv4, prefix_to_mask

VISIBLE = ["test_parse_ipv4", "test_format_ipv4", "test_in_network"]


def test_parse_ipv4():
    assert parse_ipv4("0.0.0.0") == 0
    assert parse_ipv4("192.168.1.1") == 0xC0A80101
    assert parse_ipv4("255.255.255.255") == 0xFFFFFFFF
    assert parse_ipv4(" 10.0.0.1 ") == 0x0A000001


def test_parse_ipv4_errors():
    for bad in ["1.2.3", "1.2.3.4.5", "1.2.3.256", "01.2.3.4", "a.b.c.d", "1..3.4", "-1.2.3.4"]:
        with pytest.raises(ValueError):
            parse_ipv4(bad)
    with pytest.raises(ValueError, match="out of range"):
        parse_ipv4("1.2.3.256")
    assert parse_ipv4("1.0.0.0") == 1 << 24


def test_format_ipv4():
    assert format_ipv4(0xC0A80101) == "192.168.1.1"
    assert format_ipv4(0) == "0.0.0.0"
    assert format_ipv4(0xFFFFFFFF) == "255.255.255.255"
    assert format_ipv4(parse_ipv4("172.16.254.3")) == "172.16.254.3"
    with pytest.raises(ValueError):
        format_ipv4(-1)
    with pytest.raises(ValueError):
        format_ipv4(1 << 32)


def test_prefix_to_mask():
    assert prefix_to_mask(24) == 0xFFFFFF00
    assert prefix_to_mask(0) == 0
    assert prefix_to_mask(32) == 0xFFFFFFFF
    assert format_ipv4(prefix_to_mask(20)) == "255.255.240.0"
    for bad in [-1, 33]:
        with pytest.raises(ValueError, match="prefix length"):
            prefix_to_mask(bad)


def test_parse_cidr():
    assert parse_cidr("192.168.1.77/24") == (0xC0A80100, 24)
    assert parse_cidr("10.1.2.3") == (0x0A010203, 32)
    assert parse_cidr("10.1.2.3/0") == (0, 0)


def test_in_network():
    assert in_network("192.168.1.200", "192.168.1.0/24") is True
    assert in_network("192.168.2.1", "192.168.1.0/24") is False
    assert in_network("8.8.8.8", "0.0.0.0/0") is True
    assert in_network("10.0.0.5", "10.0.0.5/32") is True
    assert in_network("10.0.0.6", "10.0.0.5/32") is False


def test_in_network_boundaries():
    assert in_network("172.31.255.255", "172.16.0.0/12") is True
    assert in_network("172.32.0.0", "172.16.0.0/12") is False
    assert in_network("172.15.255.255", "172.16.0.0/12") is False


def test_host_range():
    assert host_range("192.168.1.0/24") == ("192.168.1.1", "192.168.1.254")
    assert host_range("10.0.0.0/30") == ("10.0.0.1", "10.0.0.2")
    assert host_range("10.0.0.8/29") == ("10.0.0.9", "10.0.0.14")


def test_host_range_small_networks():
    assert host_range("10.0.0.4/31") == ("10.0.0.4", "10.0.0.5")
    assert host_range("10.0.0.4/32") == ("10.0.0.4", "10.0.0.4")


def test_is_private():
    assert is_private("10.20.30.40") is True
    assert is_private("172.20.0.1") is True
    assert is_private("192.168.0.1") is True
    assert is_private("192.169.0.1") is False
    assert is_private("8.8.8.8") is False
    assert is_private("11.0.0.0") is False
