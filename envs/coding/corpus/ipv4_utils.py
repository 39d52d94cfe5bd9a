"""IPv4 address and CIDR network helpers working on plain integers.

An address is parsed into a 32-bit integer so that masks and ranges are
simple bit arithmetic.
"""


def parse_ipv4(text):
    """Parse dotted-quad notation into an integer; rejects leading zeros."""
    parts = text.strip().split(".")
    if len(parts) != 4:
        raise ValueError(f"expected 4 octets in {text!r}")
    value = 0
    for part in parts:
        if not part.isdigit() or (len(part) > 1 and part[0] == "0"):
            raise ValueError(f"bad octet {part!r} in {text!r}")
        octet = int(part)
        if octet > 255:
            raise ValueError(f"octet {octet} out of range in {text!r}")
        value = (value << 8) | octet
    return value


def format_ipv4(value):
    """Format a 32-bit integer as dotted-quad notation."""
    if not 0 <= value <= 0xFFFFFFFF:
        raise ValueError("address out of range")
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def prefix_to_mask(prefix):
    """Return the netmask integer for a prefix length 0-32."""
    if not 0 <= prefix <= 32:
        raise ValueError("prefix length must be between 0 and 32")
    return (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF


def parse_cidr(text):
    """Parse 'a.b.c.d/n' into (network_address, prefix); host bits are cleared."""
    address, _, prefix_text = text.partition("/")
    prefix = int(prefix_text) if prefix_text else 32
    mask = prefix_to_mask(prefix)
    return parse_ipv4(address) & mask, prefix


def in_network(address, cidr):
    """Return True if the dotted-quad address lies inside the CIDR network."""
    network, prefix = parse_cidr(cidr)
    return parse_ipv4(address) & prefix_to_mask(prefix) == network


def host_range(cidr):
    """Return (first, last) usable host addresses as strings.

    /31 and /32 networks have no separate network and broadcast addresses.
    """
    network, prefix = parse_cidr(cidr)
    size = 1 << (32 - prefix)
    if prefix >= 31:
        return format_ipv4(network), format_ipv4(network + size - 1)
    return format_ipv4(network + 1), format_ipv4(network + size - 2)


def is_private(address):
    """Return True for addresses in the RFC 1918 private ranges."""
    return any(in_network(address, block) for block in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))
