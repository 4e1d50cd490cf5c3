"""The attention model of Kool, van Hoof & Welling (2019) for the routing ids, in PyTorch.

An encoder of ``layers`` transformer layers (multi-head attention, then a feed-forward layer,
each with a skip connection and batch normalization) embeds the nodes once per episode; a pointer
decoder then picks one node per step: its context is the graph embedding (the nodes' mean) with
the first and the current city (TSP), the current node and the remaining capacity (CVRP) or the
remaining length budget (orienteering); one glimpse of multi-head attention over the nodes, then
single-head compatibilities clipped by ``clip * tanh`` and masked to the feasible nodes. A value
head on the glimpse gives PPO its critic (as RLOR's actor-critic does).

The encoder's output and every projection the decoder takes of it are computed once, in
:meth:`AttentionModel.encode`, and reused at every step (:class:`Encoding`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

#: The observation's per-node features of each problem, after the coordinates.
NODE_FEATURES = {"tsp": (), "cvrp": ("demand",), "op": ("prize",)}
#: The observation's scalar state that joins the decoder's context.
CONTEXT_STATE = {"tsp": None, "cvrp": "remaining_capacity", "op": "remaining_length"}


def problem_of(observation_keys) -> str:
    """``tsp``, ``cvrp`` or ``op`` from a routing observation's keys."""
    keys = set(observation_keys)
    if "first" in keys:
        return "tsp"
    if "demand" in keys:
        return "cvrp"
    if "prize" in keys:
        return "op"
    raise ValueError(f"not a routing observation (keys {sorted(keys)}): expected TSP-v0's, CVRP-v0's or "
                     f"Orienteering-v0's")


def as_tensors(observation: dict) -> dict[str, torch.Tensor]:
    """A batched numpy observation as float tensors."""
    return {name: torch.as_tensor(np.asarray(value), dtype=torch.float32) for name, value in observation.items()}


class _Normalization(nn.Module):
    """Batch normalization over every node of the batch."""

    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.BatchNorm1d(dim, affine=True)

    def forward(self, x):
        return self.norm(x.reshape(-1, x.shape[-1])).reshape(x.shape)


class _EncoderLayer(nn.Module):
    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.attention = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm1 = _Normalization(dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))
        self.norm2 = _Normalization(dim)

    def forward(self, h):
        h = self.norm1(h + self.attention(h, h, h, need_weights=False)[0])
        return self.norm2(h + self.feed_forward(h))


@dataclass
class Encoding:
    """What the decoder reuses at every step of an episode (rows: the batch's instances).

    Attributes:
        nodes: (B, N, D) node embeddings.
        graph: (B, D) their mean, projected (the fixed part of the context).
        glimpse_keys, glimpse_values, logit_keys: (B, N, D) the decoder's projections of the nodes.
    """

    nodes: torch.Tensor
    graph: torch.Tensor
    glimpse_keys: torch.Tensor
    glimpse_values: torch.Tensor
    logit_keys: torch.Tensor

    def rows(self, index) -> Encoding:
        """The encoding of the rows ``index`` (repeated rows allowed)."""
        return Encoding(*(getattr(self, name)[index] for name in self.__dataclass_fields__))


class AttentionModel(nn.Module):
    """Kool et al.'s encoder and pointer decoder for ``problem`` (``tsp``, ``cvrp``, ``op``), with a value head."""

    def __init__(self, problem: str, embedding: int = 128, heads: int = 8, layers: int = 3,
                 feed_forward: int = 512, clip: float = 10.0):
        super().__init__()
        if problem not in NODE_FEATURES:
            raise ValueError(f"problem must be one of {', '.join(NODE_FEATURES)}, got {problem!r}")
        if embedding % heads:
            raise ValueError(f"the embedding size {embedding} must be a multiple of the heads {heads}")
        self.problem, self.heads, self.clip = problem, heads, clip
        self.node_embedding = nn.Linear(2 + len(NODE_FEATURES[problem]), embedding)
        if problem != "tsp":  # the depot has its own embedding, as in Kool et al.
            self.depot_embedding = nn.Linear(2, embedding)
        self.encoder = nn.ModuleList(_EncoderLayer(embedding, heads, feed_forward) for _ in range(layers))
        self.project_nodes = nn.Linear(embedding, 3 * embedding, bias=False)
        self.project_graph = nn.Linear(embedding, embedding, bias=False)
        steps = 2 * embedding if problem == "tsp" else embedding + 1
        self.project_step = nn.Linear(steps, embedding, bias=False)
        self.project_out = nn.Linear(embedding, embedding, bias=False)
        self.value_head = nn.Sequential(nn.Linear(embedding, embedding), nn.ReLU(), nn.Linear(embedding, 1))

    # ------------------------------------------------------------------ encoder: once per episode
    def encode(self, observation: dict[str, torch.Tensor]) -> Encoding:
        """Embed the batch's instances (their locations and per-node features)."""
        locations = observation["locations"]
        features = torch.cat([locations] + [observation[name][..., None] for name in NODE_FEATURES[self.problem]],
                             dim=-1)
        h = self.node_embedding(features)
        if self.problem != "tsp":
            h = torch.cat([self.depot_embedding(locations[:, :1]), h[:, 1:]], dim=1)
        for layer in self.encoder:
            h = layer(h)
        keys, values, logit_keys = self.project_nodes(h).chunk(3, dim=-1)
        return Encoding(h, self.project_graph(h.mean(dim=1)), keys, values, logit_keys)

    # ------------------------------------------------------------------ decoder: once per step
    def decode(self, encoding: Encoding, observation: dict[str, torch.Tensor],
               mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(B, N) masked logits of the next node and (B,) state values at the observed step."""
        rows = torch.arange(mask.shape[0])
        current = encoding.nodes[rows, observation["current"].argmax(dim=1)]
        if self.problem == "tsp":
            step = torch.cat([encoding.nodes[rows, observation["first"].argmax(dim=1)], current], dim=-1)
        else:
            step = torch.cat([current, observation[CONTEXT_STATE[self.problem]]], dim=-1)
        query = encoding.graph + self.project_step(step)  # (B, D)
        glimpse = self.project_out(self._glimpse(query, encoding, mask))
        dim = glimpse.shape[-1]
        compatibility = torch.einsum("bd,bnd->bn", glimpse, encoding.logit_keys) / math.sqrt(dim)
        logits = self.clip * torch.tanh(compatibility)
        return logits.masked_fill(~mask, -math.inf), self.value_head(glimpse).squeeze(-1)

    def _glimpse(self, query, encoding: Encoding, mask):
        batch, nodes, dim = encoding.glimpse_keys.shape
        head = dim // self.heads
        q = query.view(batch, self.heads, 1, head)
        k = encoding.glimpse_keys.view(batch, nodes, self.heads, head).transpose(1, 2)
        v = encoding.glimpse_values.view(batch, nodes, self.heads, head).transpose(1, 2)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(head)  # (B, H, 1, N)
        scores = scores.masked_fill(~mask[:, None, None, :], -math.inf)
        return (torch.softmax(scores, dim=-1) @ v).reshape(batch, dim)

    def forward(self, observation: dict[str, torch.Tensor], mask: torch.Tensor):
        """Logits and values at one step, encoding from scratch (what the cache must equal)."""
        return self.decode(self.encode(observation), observation, mask)
