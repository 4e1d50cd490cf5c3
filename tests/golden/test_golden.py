"""Every reference policy of every id plays the same whole episodes as when its digest was
recorded (see :mod:`tests.golden.golden`): a refactoring keeps behaviour bit for bit (up to the
last bits of a float), and a change of behaviour shows up as a failed digest."""

from __future__ import annotations

import pytest

from .golden import case_id, cases, digest, load, play

DIGESTS = load()


def _params():
    params = []
    for entry, policy, seed in cases():
        ref = entry.policy(policy)
        missing = [extra for extra, installed in ((entry.extra, entry.installed), (ref.extra, ref.installed))
                   if extra and not installed]
        marks = [pytest.mark.skip(reason=f"needs the {missing[0]!r} extra")] if missing else []
        params.append(pytest.param(entry, policy, seed, id=case_id(entry.id, policy, seed), marks=marks))
    return params


@pytest.mark.parametrize("entry, policy, seed", _params())
def test_episode_matches_its_golden_digest(entry, policy, seed):
    key = case_id(entry.id, policy, seed)
    assert key in DIGESTS, (f"no golden digest for {key}: a new id or policy is recorded with "
                            f"`python -m tests.golden.golden {entry.id}`")
    assert digest(play(entry, policy, seed)) == DIGESTS[key], (
        f"{key} no longer plays its recorded episode. If the change of behaviour is deliberate, bump "
        f"the id's version, say why in its Version History and record the new id's digests.")


def test_every_digest_belongs_to_a_case():
    known = {case_id(entry.id, policy, seed) for entry, policy, seed in cases()}
    stale = sorted(set(DIGESTS) - known)
    assert not stale, f"digests of cases that no longer exist (remove them from digests.json): {stale}"
