"""Every profile's parameters are parameters the chapters have, with values they accept:
a profile that names a renamed parameter would be refused only when someone runs it."""

import pytest

from helpers.book import build, parameters


@pytest.mark.parametrize("profile", sorted(build.PROFILES))
def test_profile_parameters_are_accepted(profile):
    for chapter, values in build.PROFILES[profile].items():
        assert chapter in build.CHAPTERS, f"{profile}: unknown chapter {chapter!r}"
        parameters.check(chapter, values)


def test_rules_name_declared_parameters():
    for chapter, rules in parameters.RULES.items():
        declared = parameters.declared(chapter)
        assert set(rules) <= set(declared), (
            chapter,
            sorted(set(rules) - set(declared)),
        )


def test_init_choices_are_the_relns_inits():
    from helpers.core import relns

    assert parameters.INIT_CHOICES == tuple(relns.INITS)
