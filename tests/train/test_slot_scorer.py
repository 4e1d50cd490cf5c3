"""The slot-scoring MaskablePPO policy reads every command slot with the same network, and a
hyperparameter file names it as module:Class."""

import numpy as np
import pytest

import envzoo
from envzoo.text.choice import AdmissibleChoice

pytest.importorskip("sb3_contrib")


def test_permuting_the_commands_permutes_their_scores():
    import torch
    from sb3_contrib import MaskablePPO

    from envzoo.train.slot_scorer import SlotScorerPolicy

    env = AdmissibleChoice(envzoo.make("envzoo/Household-v0"), max_choices=16, state_size=64, command_size=16)
    model = MaskablePPO(SlotScorerPolicy, env, policy_kwargs={"state_size": 64}, n_steps=64, seed=0, device="cpu")
    observation, info = env.reset(seed=0)
    count = len(info["admissible_commands"])
    slots = observation[64:].reshape(16, -1)
    order = np.concatenate([np.arange(count)[::-1], np.arange(count, 16)])  # the listed commands reversed
    permuted = np.concatenate([observation[:64], slots[order].ravel()])
    with torch.no_grad():
        scores = model.policy.mlp_extractor.forward_actor(torch.as_tensor(np.stack([observation, permuted])))
    assert scores.shape == (2, 16)
    np.testing.assert_allclose(scores[1].numpy(), scores[0].numpy()[order], rtol=1e-5, atol=1e-6)
    assert len(set(np.round(scores[0, :count].numpy(), 6))) > 1  # the commands are told apart


def test_a_policy_named_module_colon_class_is_imported_and_a_wrong_one_is_named():
    from envzoo.train.runs import TrainingError
    from envzoo.train.sb3 import _policy
    from envzoo.train.slot_scorer import SlotScorerPolicy

    assert _policy("envzoo.train.slot_scorer:SlotScorerPolicy") is SlotScorerPolicy
    assert _policy("MlpPolicy") == "MlpPolicy"
    with pytest.raises(TrainingError, match="policy 'envzoo.train.slot_scorer:Nope' names no class"):
        _policy("envzoo.train.slot_scorer:Nope")
