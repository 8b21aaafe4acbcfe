"""Addresses, CIDRs and DNS names: the input refuses what the API server refuses (or calls
ambiguous), at the value's line, and ``generator.addresses`` judges them as apimachinery does."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator import addresses
from tests.inputs.test_gpu_consistency import AKS, edit, line_of, render_fails

EGRESS = "    allowEgressTo: [10.20.0.0/16]\n"


@pytest.mark.parametrize(
    ("value", "message", "hint"),
    [
        ("10.0.0.300/33", "CIDR '10.0.0.300/33' must be a valid CIDR value", "correct workloads[0].allowEgressTo[0]"),
        ("10.0.0.0/40", "must be a valid CIDR value", "correct workloads[0].allowEgressTo[0]"),
        ("10.20.0.1/16", "must not have bits set beyond the prefix length", "write 10.20.0.0/16"),
        ("010.20.0.0/16", "must not have leading 0s", "write 10.20.0.0/16"),
        ("2001:db8::1/64", "must not have bits set beyond the prefix length", "write 2001:db8::/64"),
        ("2001:db8:::/64", "must be a valid CIDR value", "correct"),
    ],
)
def test_a_bad_egress_cidr_is_located(project, run, value, message, hint):
    text = edit(project, AKS, EGRESS, f'    allowEgressTo: ["{value}"]\n')
    render_fails(run, project, AKS, line_of(text, "    allowEgressTo: ["), message, hint)


def test_an_ipv6_egress_cidr_renders(project, run):
    edit(project, AKS, EGRESS, '    allowEgressTo: [10.20.0.0/16, "2001:db8::/64"]\n')
    assert run(project, "render", AKS).exit_code == 0


def test_a_bad_dns_name_and_cilium_address_are_located(project, run):
    long_name = ".".join(["a" * 60] * 5) + ".com"
    text = edit(project, AKS, "allowEgressToFQDNs: [huggingface.co,", f"allowEgressToFQDNs: [{long_name},")
    render_fails(run, project, AKS, line_of(text, "allowEgressToFQDNs: ["), "must be no more than 253 characters", "")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("10.0.0.0/8", None),
        ("2001:db8::/64", None),
        ("0.0.0.0/0", None),
        ("10.0.0.300/8", addresses.REFUSED),
        ("10.0.0.0/33", addresses.REFUSED),
        ("10.0.0.0", addresses.REFUSED),
        ("10.0.0.0/", addresses.REFUSED),
        ("10.0.0.0/+8", addresses.REFUSED),
        ("fe80::/64%eth0", addresses.REFUSED),
        ("2001:db8::/129", addresses.REFUSED),
        ("10.0.0.1/8", addresses.AMBIGUOUS),
        ("10.0.0.0/08", addresses.AMBIGUOUS),
        ("010.0.0.0/8", addresses.AMBIGUOUS),
        ("::ffff:10.0.0.0/104", addresses.AMBIGUOUS),
    ],
)
def test_cidrs_are_judged_as_apimachinery_does(value, problem):
    found = addresses.cidr_problems(value)
    assert (found[0].kind if found else None) == problem


def test_except_must_be_a_strict_subset_of_the_cidr():
    assert addresses.except_problems("10.0.0.0/8", "10.1.0.0/16") == []
    assert addresses.except_problems("10.0.0.0/8", "10.0.0.0/8")[0].message.startswith("must be a strict subset")
    assert addresses.except_problems("10.0.0.0/8", "192.168.0.0/16")[0].message.startswith("must be a strict subset")
    assert addresses.except_problems("10.0.0.0/8", "2001:db8::/64")[0].message.startswith("must be a strict subset")


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        (80, True),
        (65535, True),
        (0, False),
        (65536, False),
        (True, False),
        ("http", True),
        ("h2c-port", True),
        ("8080", False),
        ("a--b", False),
        ("-http", False),
        ("very-long-port-name", False),
        ("HTTP", False),
    ],
)
def test_ports_are_numbers_or_iana_names(value, valid):
    assert (addresses.port_problems(value) == []) is valid


# The names are read with set operations, each held equal here to the pattern it replaces, on
# strings of the characters that matter to it.
_NAME_PIECES = st.sampled_from(["a", "z", "0", "9", "-", "--", ".", "A", "_", "²", "٣", "http", "x" * 63, "\n"])


@given(st.lists(_NAME_PIECES, max_size=10).map("".join))
def test_names_and_numbers_are_read_as_their_patterns(text):
    label = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
    assert addresses.dns_subdomain(text) == bool(re.fullmatch(rf"{label}(\.{label})*", text))
    assert addresses.dns1035_label(text) == bool(re.fullmatch(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?", text))
    assert addresses._decimal(text) == bool(re.fullmatch(r"[0-9]+", text))
    port = addresses.port_name_problems(text)
    alphabet = bool(re.fullmatch(r"[-a-z0-9]+", text))
    assert bool(port and port[0].message.startswith("must contain only")) == (len(text) <= 15 and not alphabet)
    if len(text) <= 15 and alphabet:
        letter = bool(re.search(r"[a-z]", text))
        assert bool(port and port[0].message == "must contain at least one letter (a-z)") == (not letter)
