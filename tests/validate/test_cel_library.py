"""The Kubernetes CEL libraries CRD rules may call (``validate.cellib``), each with its semantics,
and every rule of the synced CRDs runnable."""

from __future__ import annotations

import json

import pytest

from generator.validate import celrules


def _run(expression: str, value: object = None):
    program = celrules._program(expression)
    assert not isinstance(program, str), program
    return celrules._execute(program, value)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # regex
        ("'gpu-12'.find('[0-9]+')", "12"),
        ("'a1b22'.findAll('[0-9]+')", ["1", "22"]),
        ("'a1b22c3'.findAll('[0-9]+', 2)", ["1", "22"]),
        ("'abc'.find('[0-9]')", ""),
        # strings
        ("'abc'.charAt(1)", "b"),
        ("'abcabc'.indexOf('c', 3)", 5),
        ("'abcabc'.lastIndexOf('b')", 4),
        ("'a,b,c'.split(',', 2)", ["a", "b,c"]),
        ("'abc'.substring(1, 2)", "b"),
        ("'aaa'.replace('a', 'b', 2)", "bba"),
        ("['a', 'b'].join('-')", "a-b"),
        ("'ab'.reverse()", "ba"),
        ("strings.quote('a\"b')", '"a\\"b"'),
        ("'%s has %d GPUs'.format(['node', 8])", "node has 8 GPUs"),
        ("'Ab'.lowerAscii() + ' ' + '  x '.trim()", "ab x"),
        # lists and sets
        ("[1, 2, 2].isSorted() && ![2, 1].isSorted()", True),
        ("[1, 2, 3].sum() + [4, 5].max() + [6, 7].min()", 17),
        ("sets.contains([1, 2, 3], [1, 2]) && !sets.contains([1], [2])", True),
        ("sets.equivalent([1, 2], [2, 1, 1]) && sets.intersects([1], [3, 1])", True),
        # quantity
        ("quantity('1Gi').isGreaterThan(quantity('1000Mi'))", True),
        ("quantity('500m').add(quantity('1')).compareTo(quantity('1500m'))", 0),
        ("quantity('2Gi').sub(quantity('1Gi')).asInteger()", 2**30),
        ("isQuantity('1.5Gi') && !isQuantity('1.5GB') && quantity('1.5').isInteger() == false", True),
        ("quantity('-1').sign()", -1),
        # URLs
        ("url('https://user@example.com:8443/v1?a=1').getPort()", "8443"),
        ("url('https://[::1]:80/p').getHostname()", "::1"),
        ("url('https://example.com/a%20b').getEscapedPath()", "/a%20b"),
        ("isURL('https://a.example') && isURL('/path') && !isURL('no scheme') && !isURL('')", True),
        # IP and CIDR
        ("ip('10.0.0.1').family() == 4 && ip('fe80::1').isLinkLocalUnicast()", True),
        ("isIP('::1') && !isIP('10.0.0.256') && !isIP('fe80::1%eth0') && !isIP('::ffff:10.0.0.1')", True),
        ("ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", True),
        ("ip('127.0.0.1').isLoopback() && ip('0.0.0.0').isUnspecified() && ip('8.8.8.8').isGlobalUnicast()", True),
        ("cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", True),
        ("cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16') && cidr('10.0.0.0/8').prefixLength() == 8", True),
        (
            "cidr('192.168.1.7/24').ip() == ip('192.168.1.7') && cidr('192.168.1.7/24').masked() == cidr('192.168.1.0/24')",
            True,
        ),
        ("isCIDR('10.0.0.0/8') && !isCIDR('10.0.0.0')", True),
        # semver
        ("semver('1.2.3').isLessThan(semver('1.10.0')) && semver('1.2.3-rc.1').isLessThan(semver('1.2.3'))", True),
        ("semver('2.3.4').major() * 100 + semver('2.3.4').minor() * 10 + semver('2.3.4').patch()", 234),
        ("isSemver('1.2.3') && !isSemver('1.2') && !isSemver('v1.2.3')", True),
        # format
        ("format.dns1123Label().validate('gpu-pool').size() == 0", True),
        ("format.dns1123Label().validate('GPU_Pool').size()", 1),
        ("format.qualifiedName().validate('nvidia.com/gpu').size() == 0", True),
        ("format.named('uuid').validate('not-a-uuid').size()", 1),
        # math
        ("math.greatest(1, 5, 3) == 5 && math.least([4, 2]) == 2", True),
    ],
)
def test_library_function(expression, expected):
    assert _run(expression) == expected


def test_a_value_a_function_does_not_take_is_not_evaluated_never_failed():
    """quantity('abc') raises, as the API server's does: the rule is skipped with a warning."""
    skipped = []
    schema = {"x-kubernetes-validations": [{"rule": "quantity(self) > quantity('1')", "message": "too small"}]}
    assert celrules.check(schema, "abc", lambda rule, why: skipped.append(rule)) == []
    assert skipped == ["quantity(self) > quantity('1')"]


def test_a_rule_calling_find_is_evaluated_and_can_fail():
    """Karpenter's NodePool rules call find(); they were skipped before the regex library."""
    rule = {"rule": "self.find('^[a-z]+$') != ''", "message": "lower-case letters only"}
    schema = {"x-kubernetes-validations": [rule]}
    assert celrules.check(schema, "pool", lambda *a: pytest.fail(str(a))) == []
    assert celrules.check(schema, "Pool-1", lambda *a: pytest.fail(str(a))) == [((), "lower-case letters only")]


@pytest.mark.slow
def test_no_rule_of_the_synced_crds_is_left_unevaluated(synced_cache):
    """Every x-kubernetes-validations rule of every synced schema compiles and calls only
    functions standard CEL or the Kubernetes libraries have."""
    rules, left = 0, []
    for path in sorted((synced_cache / "crd-schemas").rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        schema = json.loads(text)
        # the sync writes each schema as json.dumps indents it (crdimport.indented_json)
        assert path.name == "SET.json" or text == json.dumps(schema, indent=2, sort_keys=True) + "\n", path
        rules += json.dumps(schema).count('"rule":')
        left += [(path.name, rule, why) for rule, why in celrules.unevaluated(schema)]
    assert rules > 500
    assert left == []
    assert celrules.unevaluated({"x-kubernetes-validations": [{"rule": "self.frobnicate()"}]}) == [
        ("self.frobnicate()", "no function frobnicate")
    ]
