"""A trained attention model (:mod:`envzoo.train.attention_model`) as a policy of the routing ids,
with the field's three decodings:

- ``greedy``: the most likely feasible node at every step;
- ``sampling``: a node drawn from the model's distribution (seeded by the episode's seed);
- ``pomo``: POMO's multi-start greedy (Kwon et al. 2020): the instance decoded greedily from every
  first move at once (:func:`envzoo.routing.multistart.multi_start`), the best tour played.

The encoder runs once per episode; its output is reused at every step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from envzoo.core.policy import Policy
from envzoo.routing.multistart import multi_start
from envzoo.routing.params import make_params
from envzoo.routing.task import RoutingTask
from envzoo.train.attention_model import AttentionModel, as_tensors

DECODINGS = ("greedy", "sampling", "pomo")
#: The checkpoint file in a run's checkpoint folder.
MODEL_FILE = "attention_model.pt"


def save_model(model: AttentionModel, model_kwargs: dict, path: Path, **extra) -> None:
    """Write ``model`` (its sizes and weights, and ``extra`` entries such as the optimizer's state) to ``path``."""
    torch.save({"problem": model.problem, "model_kwargs": model_kwargs, "model": model.state_dict(), **extra}, path)


def load_model(path: Path | str) -> tuple[AttentionModel, dict]:
    """The model saved at ``path`` (a file, or a checkpoint folder holding :data:`MODEL_FILE`), in
    evaluation mode, and the whole saved record."""
    path = Path(path)
    if path.is_dir():
        path = path / MODEL_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no attention-model checkpoint at {path}: give a run's checkpoint folder "
                                f"(runs/NAME/torch-attention-ppo-seedS/checkpoint-STEPS) or its {MODEL_FILE}")
    saved = torch.load(path, map_location="cpu", weights_only=False)
    model = AttentionModel(saved["problem"], **saved["model_kwargs"])
    model.load_state_dict(saved["model"])
    return model.eval(), saved


def batch_choice(model: AttentionModel, decoding: str = "greedy", generator: torch.Generator | None = None):
    """``choose(observation, mask) -> actions`` for batched numpy observations, encoding each new
    batch of instances once (a batch is new when its locations change)."""
    cache = {}

    @torch.no_grad()
    def choose(observation: dict, mask: np.ndarray) -> np.ndarray:
        tensors = as_tensors(observation)
        if cache.get("locations") is None or not torch.equal(cache["locations"], tensors["locations"]):
            cache["locations"], cache["encoding"] = tensors["locations"], model.encode(tensors)
        logits, _ = model.decode(cache["encoding"], tensors, torch.as_tensor(np.asarray(mask, bool)))
        if decoding == "sampling":
            return torch.multinomial(torch.softmax(logits, dim=-1), 1, generator=generator).squeeze(1).numpy()
        return logits.argmax(dim=-1).numpy()

    return choose


class AttentionPolicy(Policy):
    """A trained attention model acting on a single routing env, decoding as ``decoding`` says
    (:data:`DECODINGS`). ``model`` is an :class:`AttentionModel` or a checkpoint path."""

    def __init__(self, env, model: AttentionModel | Path | str, decoding: str = "greedy"):
        super().__init__(env)
        if decoding not in DECODINGS:
            raise ValueError(f"decoding must be one of {', '.join(DECODINGS)}, got {decoding!r}")
        self.model = model if isinstance(model, AttentionModel) else load_model(model)[0]
        self.model.eval()
        self.decoding = decoding
        self._generator = torch.Generator().manual_seed(0)
        self._choose = batch_choice(self.model, decoding, self._generator)
        self._plan: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        self._choose = batch_choice(self.model, self.decoding, self._generator)
        if seed is not None:
            self._generator.manual_seed(seed)

    def __call__(self, observation, info):
        if self.decoding == "pomo":
            return self._planned(observation)
        batch = {name: np.asarray(value)[None] for name, value in observation.items()}
        return int(self._choose(batch, np.asarray(info["action_mask"], bool)[None])[0])

    def _planned(self, observation) -> int:
        """The best multi-start tour, planned at the episode's first step and played node by node."""
        sim = self.env.unwrapped.task.sim
        step = int(sim.steps[0])
        if step == 0:
            best = best_of_starts(self.model, sim.problem, sim.instance(0))
            start = best.index(int(np.argmax(observation["current"])))
            self._plan = (best[start:] + best[:start])[1:]
        return self._plan[step]


def best_of_starts(model: AttentionModel, problem: str, instance) -> list[int]:
    """The shortest (orienteering: the most rewarding) of ``model``'s greedy tours of ``instance``
    from every first move, as the nodes visited in order."""
    rollouts = multi_start(problem, instance, batch_choice(model, "greedy"))
    return [int(node) for node in rollouts.tours[rollouts.best]]


def decoded_lengths(model: AttentionModel, problem: str, instances: list, decoding: str = "greedy",
                    seed: int = 0) -> np.ndarray:
    """The tour lengths (orienteering: the prizes), in each instance's own units, of ``model``
    decoding every one of ``instances`` (of one size) at once: ``greedy`` and ``sampling`` in one
    batch, ``pomo`` one multi-start batch per instance (the best of its starts)."""
    if decoding == "pomo":
        rollouts = [multi_start(problem, instance, batch_choice(model, "greedy")) for instance in instances]
        return np.array([(r.prizes if problem == "op" else r.lengths)[r.best] for r in rollouts])
    task = RoutingTask(make_params(problem, instance=instances[0]), len(instances))
    task.sim.reset(np.arange(len(instances)), list(instances))
    choose = batch_choice(model, decoding, torch.Generator().manual_seed(seed))
    while not task.sim.done.all():
        mask = task.action_mask()
        mask[task.sim.done] = True  # finished rows choose anything (ignored), never from an empty mask
        actions = choose(task.observe(), mask)
        task.step(np.where(task.sim.done, 0, actions))
    return task.sim.collected.copy() if problem == "op" else task.tour_length()
