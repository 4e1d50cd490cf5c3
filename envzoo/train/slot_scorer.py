"""A ``MaskablePPO`` policy for the admissible-choice adapter (:mod:`envzoo.text.choice`) that
scores every command slot with one shared network, DRRN's shape (He et al., 2016): a relevance
score per (state, command) pair, a softmax over the legal slots. An MLP over the flat observation
has to learn each slot's weights apart and cannot carry what it learned about a command in slot
2 to the same command in slot 9; this one reads every slot alike. Select it in a hyperparameter
file with ``policy: envzoo.train.slot_scorer:SlotScorerPolicy``.

Needs the ``train`` extra (PyTorch, sb3-contrib).
"""

from __future__ import annotations

from envzoo.core.extras import require
from envzoo.text.choice import STATE_SIZE

torch = require("train", "torch")
nn = torch.nn
MaskableActorCriticPolicy = require("train", "sb3_contrib.common.maskable.policies").MaskableActorCriticPolicy


class SlotScorer(nn.Module):
    """The observation's state part and each slot through shared layers: per slot a score (the
    actor's latent, which is the logits), and the state's encoding (the critic's latent)."""

    def __init__(self, state_size: int, slot_size: int, slots: int, hidden: int):
        super().__init__()
        self.state_size, self.slot_size, self.slots = state_size, slot_size, slots
        self.state = nn.Sequential(nn.Linear(state_size, hidden), nn.Tanh())
        self.command = nn.Sequential(nn.Linear(slot_size, hidden), nn.Tanh())
        self.score = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        self.critic = nn.Sequential(nn.Linear(hidden, hidden), nn.Tanh())
        self.latent_dim_pi, self.latent_dim_vf = slots, hidden

    def forward_actor(self, features):
        state = self.state(features[:, :self.state_size])
        commands = self.command(features[:, self.state_size:].reshape(-1, self.slots, self.slot_size))
        pair = state.unsqueeze(1).expand_as(commands)
        return self.score(torch.cat([pair, commands, pair * commands], dim=-1)).squeeze(-1)

    def forward_critic(self, features):
        return self.critic(self.state(features[:, :self.state_size]))

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)


class SlotScorerPolicy(MaskableActorCriticPolicy):
    """:class:`SlotScorer` as MaskablePPO's actor and critic: the slots' scores are the logits
    (no further layer mixes slots), the value is read from the state's encoding. ``state_size``
    must be the adapter's; ``hidden`` is the width of every layer."""

    def __init__(self, observation_space, action_space, lr_schedule, state_size: int = STATE_SIZE,
                 hidden: int = 64, **kwargs):
        self.state_size, self.hidden = state_size, hidden
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        slots = int(self.action_space.n)
        slot_size, rest = divmod(self.features_dim - self.state_size, slots)
        if rest or slot_size < 1:
            raise ValueError(f"SlotScorerPolicy reads observations of state_size + slots * slot size features; "
                             f"{self.features_dim} features with state_size={self.state_size} and {slots} slots do "
                             f"not split so: train it on envzoo.text.choice.AdmissibleChoice with the same state_size")
        self.mlp_extractor = SlotScorer(self.state_size, slot_size, slots, self.hidden)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the scores are the logits
        nn.init.orthogonal_(self.mlp_extractor.score[-1].weight, gain=0.01)  # near-uniform first choices
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
