"""IP addresses, CIDRs, ports and DNS names judged as the Kubernetes API server judges them.

One implementation for the input checks (IN101, IN102) and the lint rule
that reads rendered NetworkPolicies, CiliumNetworkPolicies and Services (K8S005), so an
address render accepts is one the cluster accepts, and lint says the same of it.

What the API server does (k8s.io/apimachinery pkg/util/validation/ip.go, v1.33 and later;
earlier releases behave as its non-strict path):

- An IP or CIDR is parsed by ``netutils.ParseIPSloppy``/``ParseCIDRSloppy`` (Go 1.16's
  ``net.ParseIP``/``ParseCIDR``): four decimal octets up to 255, or IPv6 without a zone, and a
  prefix length up to 32 or 128. What fails this is refused: ``must be a valid CIDR value``.
- Leading zeros (``010.0.0.0/8``, ``/08``), IPv4-mapped IPv6 (``::ffff:10.0.0.0/104``) and,
  for a CIDR, bits set beyond the prefix length (``10.0.0.1/8``) are accepted with a warning
  by the legacy fields (NetworkPolicy ``ipBlock``, Service ``loadBalancerSourceRanges``,
  ``externalIPs``, ``clusterIP``) and refused once the ``StrictIPCIDRValidation`` feature gate
  is on (alpha, off by default, since 1.33: pkg/features/kube_features.go). They are
  ambiguous either way: ``010`` is octal to libc (CVE-2021-29923), ``10.0.0.1/8`` may mean the
  network or the address. Here they are ``AMBIGUOUS``: a warning in lint, an error in inputs.
- ``ipBlock.except[i]`` must be a strict subset of ``cidr`` (networking validation
  ``ValidateIPBlock``: inside it and with a longer prefix).
- A port number is 1-65535 (``IsValidPortNum``); a port name is an IANA service name
  (``IsValidPortName``: at most 15 characters of ``a-z0-9-``, a letter among them, no leading,
  trailing or doubled ``-``). A NetworkPolicy ``endPort`` needs a numeric ``port`` no larger.
- A DNS name is an RFC 1123 subdomain (``IsDNS1123Subdomain``): at most 253 characters,
  lowercase labels of ``a-z0-9-`` not starting or ending with ``-``, each at most 63.
- A URL (KEDA's Prometheus address, a Git repository) is one Go's ``net/url.Parse`` takes, with
  a host: it refuses an unclosed ``[`` and a port that is no number in range (``url_problem``).

May import: generator.record.
"""

from __future__ import annotations

import functools

from generator.record import Frozen

TYPE_CHECKING = False  # typing's flag without importing typing (PEP 781; mypy reads it as True)
if TYPE_CHECKING:
    import ipaddress

# ``ipaddress`` and ``urllib.parse`` are imported by the functions that parse an address or a URL:
# most objects a lint reads name a port or a host and no address (~2.5 ms of a lint after an
# edit, ``python bench/bench_import_cost.py urllib.parse``).

REFUSED = "refused"
AMBIGUOUS = "ambiguous"

INVALID_IP = "must be a valid IP address (e.g. 10.9.8.7 or 2001:db8::ffff)"
INVALID_CIDR = "must be a valid CIDR value (e.g. 10.9.8.0/24 or 2001:db8::/64)"

# The names' alphabets, read with set operations, not patterns: ``re`` compiles in Python (~0.2 ms
# a pattern, in a lint whose edited file names one port); ``tests/test_input_addresses.py`` holds
# each reading equal to the pattern it replaces.
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_LABEL = _LOWER | frozenset("0123456789-")  # [-a-z0-9]
_DOTTED = frozenset("0123456789.")  # [0-9.]


def _decimal(text: str) -> bool:
    """``[0-9]+``: ASCII digits only (``str.isdigit`` alone takes ``²`` and Arabic-Indic digits)."""
    return text.isascii() and text.isdigit()


def dns_subdomain(name: str) -> bool:
    """The spelling of an RFC 1123 subdomain, lengths aside:
    ``[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*``."""
    return all(label and label[0] != "-" and label[-1] != "-" and _LABEL.issuperset(label) for label in name.split("."))


def dns1035_label(text: str) -> bool:
    """An RFC 1035 label (``IsDNS1035Label``): ``[a-z]([-a-z0-9]{0,61}[a-z0-9])?``."""
    return 0 < len(text) <= 63 and text[0] in _LOWER and text[-1] != "-" and _LABEL.issuperset(text)


class Problem(Frozen):
    """What is wrong with a value; ``kind`` REFUSED (the API server refuses it) or AMBIGUOUS
    (accepted with a warning, refused under strict validation); ``canonical`` the value to
    write instead, where there is one."""

    __slots__ = _fields = ("message", "kind", "canonical")

    message: str
    kind: str
    canonical: str | None

    def __init__(self, message: str, kind: str = REFUSED, canonical: str | None = None):
        put = object.__setattr__
        put(self, "message", message)
        put(self, "kind", kind)
        put(self, "canonical", canonical)


def _sloppy_ipv4(text: str) -> tuple[ipaddress.IPv4Address, bool] | None:
    """Four decimal octets up to 255, leading zeros allowed (Go 1.16 ``parseIPv4``); whether
    there were leading zeros."""
    parts = text.split(".")
    if len(parts) != 4 or not all(_decimal(p) for p in parts):
        return None
    values = [int(p) for p in parts]
    if any(v > 255 for v in values):
        return None
    leading = any(len(p) > 1 and p.startswith("0") for p in parts)
    import ipaddress

    return ipaddress.IPv4Address(".".join(map(str, values))), leading


@functools.lru_cache(maxsize=4096)
def _sloppy_ip(text: str) -> tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, bool] | None:
    """The address and whether it had leading zeros (only IPv4 octets may have them); None
    when ``ParseIPSloppy`` refuses it (zones included: it never took them). Kept per text:
    the same addresses recur in every NetworkPolicy of a tree, and the answer is immutable."""
    if ":" not in text:
        return _sloppy_ipv4(text)
    if "%" in text or not text.isascii():
        return None
    head, _, tail = text.rpartition(":")
    leading = False
    if "." in tail:  # an embedded IPv4 in its last 32 bits
        embedded = _sloppy_ipv4(tail)
        if embedded is None:
            return None
        leading = embedded[1]
        text = f"{head}:{embedded[0]}"
    import ipaddress

    try:
        return ipaddress.IPv6Address(text), leading
    except ValueError:
        return None


def _mapped(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    import ipaddress

    return isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None


def ip_problems(value: object, *, ipv4_only: bool = False) -> list[Problem]:
    """An IP address field (``clusterIP``, ``externalIPs``, ``hostAliases[].ip``, an input's address)."""
    if not isinstance(value, str) or (parsed := _sloppy_ip(value)) is None:
        return [Problem(INVALID_IP)]
    address, leading = parsed
    if ipv4_only and address.version != 4:
        return [Problem("must be an IPv4 address")]
    if leading:
        return [Problem("must not have leading 0s", AMBIGUOUS, str(address))]
    if _mapped(address):
        return [Problem("must not be an IPv4-mapped IPv6 address", AMBIGUOUS, str(address.ipv4_mapped))]  # type: ignore[union-attr]
    return []


def parse_cidr(value: object) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """The network a CIDR value means to the API server (host bits dropped), None when refused."""
    if not isinstance(value, str):
        return None
    return _network(value)


@functools.lru_cache(maxsize=4096)
def _network(value: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    """``parse_cidr`` of a string, kept as ``_sloppy_ip`` is."""
    address_text, slash, length_text = value.rpartition("/")
    if not slash or not _decimal(length_text) or (parsed := _sloppy_ip(address_text)) is None:
        return None
    address, _ = parsed
    length = int(length_text)
    if length > address.max_prefixlen:
        return None
    import ipaddress

    return ipaddress.ip_network(f"{address}/{length}", strict=False)


def cidr_problems(value: object, *, ipv4_only: bool = False) -> list[Problem]:
    """A CIDR field (``ipBlock.cidr``, ``loadBalancerSourceRanges``, an input's CIDR)."""
    network = parse_cidr(value)
    if network is None:
        return [Problem(INVALID_CIDR)]
    assert isinstance(value, str)
    if ipv4_only and network.version != 4:
        return [Problem("must be an IPv4 CIDR")]
    address_text, _, length_text = value.rpartition("/")
    address, leading = _sloppy_ip(address_text)  # type: ignore[misc]
    if leading or (len(length_text) > 1 and length_text.startswith("0")):
        return [Problem("must not have leading 0s in IP or prefix length", AMBIGUOUS, str(network))]
    if _mapped(address):
        return [Problem("must not have an IPv4-mapped IPv6 address", AMBIGUOUS)]
    if address != network.network_address:
        single = f"{address}/{address.max_prefixlen}"
        return [
            Problem(
                f"must not have bits set beyond the prefix length (is it {network} or {single}?)",
                AMBIGUOUS,
                str(network),
            )
        ]
    return []


def except_problems(cidr: object, excepted: object) -> list[Problem]:
    """An ``ipBlock.except`` entry against its ``cidr``: a valid CIDR strictly inside it."""
    problems = cidr_problems(excepted)
    outer, inner = parse_cidr(cidr), parse_cidr(excepted)
    if outer is None or inner is None:
        return problems
    if outer.version != inner.version or not (inner.subnet_of(outer) and inner.prefixlen > outer.prefixlen):  # type: ignore[arg-type]
        problems.append(Problem(f"must be a strict subset of `cidr` ({outer})"))
    return problems


def port_number_problems(value: object) -> list[Problem]:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        return [Problem("must be between 1 and 65535, inclusive")]
    return []


@functools.lru_cache(maxsize=4096)  # a few names (http, metrics) in most objects; callers only read the list
def port_name_problems(value: str) -> list[Problem]:
    """``IsValidPortName``: an IANA service name."""
    if len(value) > 15:
        return [Problem("must be no more than 15 characters")]
    if not value or not _LABEL.issuperset(value):
        return [Problem("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")]
    if _LOWER.isdisjoint(value):
        return [Problem("must contain at least one letter (a-z)")]
    if "--" in value:
        return [Problem("must not contain consecutive hyphens")]
    if value.startswith("-") or value.endswith("-"):
        return [Problem("must not begin or end with a hyphen")]
    return []


def port_problems(value: object) -> list[Problem]:
    """A port that is a number or a name (``targetPort``, a NetworkPolicy ``port``)."""
    if isinstance(value, str):
        return port_name_problems(value)
    return port_number_problems(value)


def dns_name_problems(value: object, *, wildcard: bool = False) -> list[Problem]:
    """An RFC 1123 subdomain (``IsDNS1123Subdomain``); ``wildcard`` allows a leading ``*.``
    (a Cilium ``toFQDNs`` pattern, an input's FQDN egress)."""
    if not isinstance(value, str):
        return [Problem("must be a string")]
    name = value[2:] if wildcard and value.startswith("*.") else value
    if len(value) > 253:
        return [Problem("must be no more than 253 characters")]
    if not dns_subdomain(name):
        return [
            Problem(
                "must be a lowercase RFC 1123 subdomain: alphanumeric characters, '-' or '.', "
                "starting and ending with an alphanumeric character"
            )
        ]
    if any(len(label) > 63 for label in name.split(".")):
        return [Problem("must have no label longer than 63 characters")]
    return []


def host_problems(value: object) -> list[Problem]:
    """A host a client connects to (Cilium's ``k8sServiceHost``): an IP address, or a DNS name in
    any case (resolvers compare names case-insensitively, RFC 4343)."""
    if isinstance(value, str) and (":" in value or (value and _DOTTED.issuperset(value))):
        return ip_problems(value)
    return dns_name_problems(value.lower() if isinstance(value, str) else value)


_BAD_PORT = "the port is not a number from 1 to 65535"


def url_problem(url: str) -> str:
    """Why ``url`` cannot be parsed into a scheme, a host and a port ('' when it can)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        port = parts.port  # a port that is no number, or out of range, raises here
    except ValueError as exc:
        return "an unclosed '[' in the host" if "IPv6" in str(exc) else _BAD_PORT
    if not parts.hostname:
        return "it names no host"
    return _BAD_PORT if port == 0 else ""


def url_host(url: str) -> str:
    """The host of ``url`` ('' for one ``url_problem`` refuses)."""
    from urllib.parse import urlsplit

    return "" if url_problem(url) else urlsplit(url).hostname or ""
