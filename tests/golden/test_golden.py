"""Every reference policy of every id plays the same whole episodes as when they were recorded
(see :mod:`golden`): bit for bit on a machine whose numerics match the recording machine's, up to
``TOLERANCE`` of each float field's scale on any other; a change of behaviour fails, saying where
the episode starts to differ."""

from __future__ import annotations

import warnings

import pytest

from .golden import RECORD_COMMAND, case_id, cases, check, load, load_trajectory, play, stored_cases

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
def test_episode_matches_its_golden_episode(entry, policy, seed):
    key = case_id(entry.id, policy, seed)
    assert key in DIGESTS, f"no golden episode for {key}: a new id or policy is recorded with `{RECORD_COMMAND} {entry.id}`"
    verdict = check(key, play(entry, policy, seed), DIGESTS[key], load_trajectory(entry.id, policy, seed))
    assert verdict.passed, (f"{verdict.message} If the change of behaviour is deliberate, bump the id's version, "
                            f"say why in its Version History and record the new id with `{RECORD_COMMAND} ID`.")
    if verdict.message:
        # a builtin category: pytest-xdist re-creates a worker's warning in the controller, which
        # cannot import a test module's own class
        warnings.warn(verdict.message, UserWarning)


def test_every_recording_belongs_to_a_case():
    known = {case_id(entry.id, policy, seed) for entry, policy, seed in cases()}
    stale_digests = sorted(set(DIGESTS) - known)
    assert not stale_digests, f"digests of cases that no longer exist (remove them from digests.json): {stale_digests}"
    stale_trajectories = sorted(stored_cases() - known)
    assert not stale_trajectories, (f"trajectories of cases that no longer exist (remove them from "
                                    f"tests/golden/trajectories): {stale_trajectories}")


def test_every_digest_has_its_trajectory():
    missing = sorted(set(DIGESTS) - stored_cases())
    assert not missing, f"cases without a recorded trajectory (record them with `{RECORD_COMMAND} ID`): {missing}"
