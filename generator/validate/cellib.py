"""The Kubernetes CEL libraries, as Python functions the evaluator calls by name.

The API server offers CRD validation rules more than standard CEL
(https://kubernetes.io/docs/reference/using-api/cel/): cel-go's string extensions, and
Kubernetes' list, regex, quantity, URL, IP and CIDR, semver, sets and format libraries
(k8s.io/apiserver/pkg/cel/library). The evaluator (``common-expression-language``) knows
standard CEL and optionals; everything below is registered as a function and called with the
receiver first (``s.lowerAscii()`` is ``lowerAscii(s)``).

The evaluator cannot carry new types, so a quantity, URL, IP, CIDR, semver or format is a map
with one key naming its type (``{"@quantity": "1Gi"}``): its methods read it, and two equal
values stay equal. A namespace (``sets.contains``, ``strings.quote``, ``format.dns1123Label()``,
``ip.isCanonical``, ``math.greatest``) is a variable holding such a map. A function given a
value it does not take raises, and the rule is reported as not evaluated, never as failing.
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import re
import urllib.parse
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NoReturn

from generator import regex
from generator.validate import re2

_TAG = "@"


def _wrap(kind: str, value: str) -> dict:
    return {_TAG + kind: value}


def _unwrap(value: object) -> tuple[str, str]:
    """The type and text of a wrapped value ('' and the value for a plain one)."""
    if isinstance(value, dict) and len(value) == 1:
        ((key, text),) = value.items()
        if isinstance(key, str) and key.startswith(_TAG):
            return key[1:], text
    return "", value  # type: ignore[return-value]


def _of(kind: str, value: object) -> str:
    found, text = _unwrap(value)
    if found != kind:
        raise TypeError(f"no such overload: {kind} expected")
    return text


NAMESPACES = {name: _wrap("namespace", name) for name in ("sets", "strings", "format", "ip", "math")}


# --- regex (k8s.io/apiserver/pkg/cel/library/regex.go): RE2 patterns


@functools.lru_cache(maxsize=256)
def _regex(pattern: str) -> re.Pattern:
    python = re2.to_python(pattern)
    if python is None:
        raise ValueError(f"the RE2 pattern {pattern!r} has no Python equivalent")
    return re.compile(python)


def _find(s: str, pattern: str) -> str:
    match = _regex(pattern).search(s)
    return match.group(0) if match else ""


def _find_all(s: str, pattern: str, limit: int = -1) -> list[str]:
    found = [m.group(0) for m in _regex(pattern).finditer(s)]
    return found if limit < 0 else found[:limit]


# --- strings (cel-go ext.Strings, the version Kubernetes enables)


def _index_of(value: str | list, item: Any, offset: int = 0) -> int:
    if isinstance(value, str):
        if not 0 <= offset <= len(value):
            raise IndexError("index out of range")
        return value.find(item, offset)
    return value.index(item) if item in value else -1


def _last_index_of(value: str | list, item: Any, offset: int | None = None) -> int:
    if isinstance(value, str):
        end = len(value) if offset is None else offset + len(item)
        return value.rfind(item, 0, end)
    return len(value) - 1 - value[::-1].index(item) if item in value else -1


def _replace(s: str, old: str, new: str, limit: int = -1) -> str:
    return s.replace(old, new, limit)


def _split(s: str, sep: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    if not sep:
        parts = list(s)
        return parts if limit < 0 else parts[: limit - 1] + ["".join(parts[limit - 1 :])]
    return s.split(sep, limit - 1 if limit > 0 else -1)


def _substring(s: str, start: int, end: int | None = None) -> str:
    end = len(s) if end is None else end
    if not 0 <= start <= end <= len(s):
        raise IndexError("substring out of range")
    return s[start:end]


def _char_at(s: str, index: int) -> str:
    if not 0 <= index <= len(s):
        raise IndexError("index out of range")
    return s[index : index + 1]


def _quote(namespace: dict, s: str) -> str:
    _of("namespace", namespace)
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def _format(template: str, args: list) -> str:
    """``"%s has %d".format([a, b])``: the verbs cel-go's ext.Strings formats (s, d, f, e, b, o, x, X)."""
    values = iter(args)

    def one(match: re.Match) -> str:
        verb, precision = match.group(2), match.group(1)
        if verb == "%":
            return "%"
        value = next(values)
        if verb == "s":
            return _text(value)
        if verb in "fe":
            return f"{float(value):.{int(precision[1:]) if precision else 6}{verb}}"
        return format(int(value), {"d": "d", "b": "b", "o": "o", "x": "x", "X": "X"}[verb])

    return re.sub(r"%(\.\d+)?([sdfebxXo%])", one, template)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    kind, text = _unwrap(value)
    return text if kind else str(value)


# --- lists (k8s.io/apiserver/pkg/cel/library/lists.go) and sets (sets.go)


def _sets(namespace: dict, a: list, b: list, test: Callable[[list, list], bool]) -> bool:
    _of("namespace", namespace)
    return test(a, b)


def _contains(*args: Any) -> bool:
    if len(args) == 3:  # sets.contains(a, b): every element of b is in a
        return _sets(args[0], args[1], args[2], lambda a, b: all(x in a for x in b))
    raise TypeError("no such overload: contains")


# --- quantity (k8s.io/apiserver/pkg/cel/library/quantity.go; resource.Quantity's grammar)

_SUFFIX: dict[str, int | Fraction] = {
    "": 1,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
    "Ei": 2**60,
}
_SUFFIX.update({"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "k": 10**3})
_SUFFIX.update({"M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18})
_QUANTITY = regex.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?")


def _quantity_value(text: str) -> Fraction | None:
    match = _QUANTITY.fullmatch(text)
    if not match:
        return None
    number, suffix = Fraction(match.group(1)), match.group(2) or ""
    if suffix[:1] in ("e", "E"):
        return number * Fraction(10) ** int(suffix[1:])
    return number * _SUFFIX[suffix]


def _quantity(text: str) -> dict:
    if _quantity_value(text) is None:
        raise ValueError(f"quantities must match the regular expression, got {text!r}")
    return _wrap("quantity", text)


def _amount(value: object) -> Fraction:
    kind, text = _unwrap(value)
    if kind == "quantity":
        found = _quantity_value(text)
        assert found is not None  # checked when it was made
        return found
    if not kind and isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    raise TypeError("no such overload: quantity expected")


def _sum_quantity(a: object, b: object, sign: int) -> dict:
    total = _amount(a) + sign * _amount(b)
    text = str(total.numerator) if total.denominator == 1 else f"{total.numerator * 1000 // total.denominator}m"
    return _wrap("quantity", text)


def _as_integer(value: object) -> int:
    amount = _amount(value)
    if amount.denominator != 1 or not -(2**63) <= amount < 2**63:
        raise ValueError("cannot convert value to integer")
    return amount.numerator


# --- semver (k8s.io/apiserver/pkg/cel/library/semverlib.go: blang/semver, strict)

_SEMVER = regex.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)"
    r"(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?"
)


def _semver(text: str) -> dict:
    if not _SEMVER.fullmatch(text):
        raise ValueError(f"invalid semver {text!r}")
    return _wrap("semver", text)


def _semver_key(value: object) -> tuple:
    match = _SEMVER.fullmatch(_of("semver", value))
    assert match is not None  # checked when it was made
    pre = match.group(4)
    parts = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")) if pre else ()
    return (int(match.group(1)), int(match.group(2)), int(match.group(3)), not pre, parts)


def _compare(a: object, b: object) -> int:
    kind, _ = _unwrap(a)
    if kind == "semver":
        x, y = _semver_key(a), _semver_key(b)
    else:
        x, y = _amount(a), _amount(b)  # type: ignore[assignment]
    return (x > y) - (x < y)


def _version_part(index: int) -> Callable[[object], int]:
    return lambda value: _semver_key(value)[index]


# --- URLs (k8s.io/apiserver/pkg/cel/library/urls.go: Go's url.ParseRequestURI)


def _url(text: str) -> dict:
    if not _is_url(text):
        raise ValueError(f"URL parse error during conversion from string: {text!r}")
    return _wrap("url", text)


def _is_url(text: str) -> bool:
    if not isinstance(text, str) or not text or any(c in text for c in " \t\n"):
        return False
    parts = urllib.parse.urlsplit(text)
    return bool(parts.scheme) or text.startswith("/")


def _url_part(part: str) -> Callable[[object], str]:
    def get(value: object) -> str:
        parts = urllib.parse.urlsplit(_of("url", value))
        if part == "host":
            return parts.netloc.rpartition("@")[2]
        if part == "hostname":
            host = parts.netloc.rpartition("@")[2]
            return host[1 : host.index("]")] if host.startswith("[") else host.partition(":")[0]
        if part == "port":
            host = parts.netloc.rpartition("@")[2]
            return host.rpartition("]:")[2] if host.startswith("[") and "]:" in host else host.partition(":")[2]
        return {"scheme": parts.scheme, "path": parts.path}[part]

    return get


def _query(value: object) -> dict:
    query = urllib.parse.urlsplit(_of("url", value)).query
    return {k: v for k, v in urllib.parse.parse_qs(query, keep_blank_values=True).items()}


# --- IP and CIDR (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go: netip, no zones, no IPv4-mapped IPv6)


def _parse_ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    if "%" in text:
        raise ValueError("IP address with zone value is not allowed")
    address = ipaddress.ip_address(text)
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        raise ValueError("IPv4-mapped IPv6 address is not allowed")
    return address


def _parse_cidr(text: str) -> ipaddress.IPv4Interface | ipaddress.IPv6Interface:
    if "/" not in text:
        raise ValueError("network address must have a prefix length")
    address, _, _ = text.partition("/")
    _parse_ip(address)
    return ipaddress.ip_interface(text)


def _ok(parse: Callable[[str], object]) -> Callable[[str], bool]:
    def test(text: str) -> bool:
        try:
            parse(text)
            return True
        except ValueError:
            return False

    return test


def _ip(value: object) -> dict:
    kind, text = _unwrap(value)
    if kind == "cidr":  # cidr.ip(): the address the CIDR was written with
        return _wrap("ip", str(_parse_cidr(text).ip))
    return _wrap("ip", str(_parse_ip(str(value))))


def _ip_canonical(namespace: dict, text: str) -> bool:
    _of("namespace", namespace)
    return str(_parse_ip(text)) == text


def _address(value: object) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    return _parse_ip(_of("ip", value))


def _cidr(text: str) -> dict:
    _parse_cidr(text)
    return _wrap("cidr", text)


def _network(value: object) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    return _parse_cidr(_of("cidr", value)).network


def _contains_ip(value: object, other: object) -> bool:
    address = _address(other) if isinstance(other, dict) else _parse_ip(str(other))
    return address in _network(value)


def _contains_cidr(value: object, other: object) -> bool:
    inner = _network(other) if isinstance(other, dict) else _parse_cidr(str(other)).network
    outer = _network(value)
    if isinstance(inner, ipaddress.IPv4Network) and isinstance(outer, ipaddress.IPv4Network):
        return inner.subnet_of(outer)
    if isinstance(inner, ipaddress.IPv6Network) and isinstance(outer, ipaddress.IPv6Network):
        return inner.subnet_of(outer)
    return False  # an address family contains none of the other's


def _family(value: object) -> int:
    return _address(value).version


# --- format (k8s.io/apiserver/pkg/cel/library/format.go): named validators. Kubernetes returns an
# optional list of errors; the evaluator cannot make an optional from a function, so ``validate``
# gives the list (empty when valid): a rule calling ``.hasValue()`` on it is reported not evaluated

_DNS1123_LABEL = regex.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = regex.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1035_LABEL = regex.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_QUALIFIED = regex.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_LABEL_VALUE = regex.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_C_IDENTIFIER = regex.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _qualified_name(s: str) -> bool:
    prefix, _, name = s.rpartition("/")
    if "/" in s and not (prefix and len(prefix) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and _QUALIFIED.fullmatch(name) is not None


_FORMATS: dict[str, Callable[[str], bool]] = {
    "dns1123Label": lambda s: len(s) <= 63 and _DNS1123_LABEL.fullmatch(s) is not None,
    "dns1123Subdomain": lambda s: len(s) <= 253 and _DNS1123_SUBDOMAIN.fullmatch(s) is not None,
    "dns1035Label": lambda s: len(s) <= 63 and _DNS1035_LABEL.fullmatch(s) is not None,
    "dns1123LabelPrefix": lambda s: len(s) <= 63 and _DNS1123_LABEL.fullmatch(s.rstrip("-") or "a") is not None,
    "dns1123SubdomainPrefix": lambda s: _DNS1123_SUBDOMAIN.fullmatch(s.rstrip("-.") or "a") is not None,
    "dns1035LabelPrefix": lambda s: _DNS1035_LABEL.fullmatch(s.rstrip("-") or "a") is not None,
    "qualifiedName": _qualified_name,
    "labelValue": lambda s: len(s) <= 63 and _LABEL_VALUE.fullmatch(s) is not None,
    "uri": _is_url,
    "uuid": lambda s: re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", s) is not None,
    "byte": lambda s: re.fullmatch(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?", s) is not None,
    "date": lambda s: re.fullmatch(r"\d{4}-\d{2}-\d{2}", s) is not None,
    "datetime": lambda s: (
        re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", s) is not None
    ),
}


def _format_named(name: str) -> Callable[[dict], dict]:
    def make(namespace: dict) -> dict:
        _of("namespace", namespace)
        return _wrap("format", name)

    return make


def _validate(value: object, s: str) -> list[str]:
    name = _of("format", value)
    return [] if _FORMATS[name](s) else [f"does not match the {name} format"]


def _named(value: object) -> dict:
    return _wrap("format", value) if value in _FORMATS else _unsupported("format.named")


def _unsupported(name: str) -> NoReturn:
    raise TypeError(f"no such overload: {name}")


def _math(pick: Callable) -> Callable:
    def apply(namespace: dict, *args: object) -> object:
        _of("namespace", namespace)
        values = args[0] if len(args) == 1 and isinstance(args[0], list) else list(args)
        return pick(values)

    return apply


LIBRARY: dict[str, Callable] = {
    # regex
    "find": _find,
    "findAll": _find_all,
    # strings
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": lambda s: "".join(c.lower() if c.isascii() else c for c in s),
    "upperAscii": lambda s: "".join(c.upper() if c.isascii() else c for c in s),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda s: s.strip(),  # Go strings.TrimSpace: Unicode white space
    "join": lambda items, sep="": sep.join(items),
    "reverse": lambda s: s[::-1],
    "quote": _quote,
    "format": _format,
    # lists
    "isSorted": lambda items: all(a <= b for a, b in itertools.pairwise(items)),
    "sum": lambda items: sum(items),
    "min": lambda items: min(items),
    "max": lambda items: max(items),
    # sets
    "contains": _contains,
    "equivalent": lambda ns, a, b: _sets(ns, a, b, lambda a, b: set(map(repr, a)) == set(map(repr, b))),
    "intersects": lambda ns, a, b: _sets(ns, a, b, lambda a, b: any(x in a for x in b)),
    # quantity
    "quantity": _quantity,
    "isQuantity": _ok(_quantity),
    "isGreaterThan": lambda a, b: _compare(a, b) > 0,
    "isLessThan": lambda a, b: _compare(a, b) < 0,
    "compareTo": _compare,
    "add": lambda a, b: _sum_quantity(a, b, 1),
    "sub": lambda a, b: _sum_quantity(a, b, -1),
    "asInteger": _as_integer,
    "isInteger": lambda value: _amount(value).denominator == 1 and -(2**63) <= _amount(value) < 2**63,
    "asApproximateFloat": lambda value: float(_amount(value)),
    "sign": lambda value: (_amount(value) > 0) - (_amount(value) < 0),
    # semver
    "semver": _semver,
    "isSemver": _ok(_semver),
    "major": _version_part(0),
    "minor": _version_part(1),
    "patch": _version_part(2),
    # URLs
    "url": _url,
    "isURL": _is_url,
    "getScheme": _url_part("scheme"),
    "getHost": _url_part("host"),
    "getHostname": _url_part("hostname"),
    "getPort": _url_part("port"),
    "getEscapedPath": _url_part("path"),
    "getQuery": _query,
    # IP and CIDR
    "ip": _ip,
    "isIP": _ok(_parse_ip),
    "isCanonical": _ip_canonical,
    "family": _family,
    "isUnspecified": lambda v: _address(v).is_unspecified,
    "isLoopback": lambda v: _address(v).is_loopback,
    "isLinkLocalMulticast": lambda v: _address(v).is_multicast and _address(v).is_link_local,
    "isLinkLocalUnicast": lambda v: not _address(v).is_multicast and _address(v).is_link_local,
    "isGlobalUnicast": lambda v: (
        not (
            _address(v).is_multicast
            or _address(v).is_loopback
            or _address(v).is_link_local
            or _address(v).is_unspecified
            or str(_address(v)) == "255.255.255.255"
        )
    ),
    "cidr": _cidr,
    "isCIDR": _ok(_parse_cidr),
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "prefixLength": lambda v: _network(v).prefixlen,
    "masked": lambda v: _wrap("cidr", str(_network(v))),
    # format
    **{name: _format_named(name) for name in _FORMATS},
    "named": lambda namespace, name: (_of("namespace", namespace), _named(name))[1],
    "validate": _validate,
    # math (cel-go ext.Math)
    "greatest": _math(max),
    "least": _math(min),
}
