"""The multi-turn agentic RL recipe (arXiv 2510.01132) at this machine's scale: with no language
model offline, a small learned policy over the admissible commands, trained with PPO or with a
group baseline (RLOO, GRPO) on the easy levels of a Household-v0 ladder, with dense or sparse
rewards, and evaluated on those levels and on harder held-out ones.

The policy is DRRN-shaped (He et al., 2016: a relevance score for each (state, action) pair,
a softmax over the admissible actions): hashed bags of words and word pairs of the state (the
goal, the last observation, the last command) and of each admissible command, embedded and
combined by a small MLP; three generic features per command (its overlap with the goal's words
and with the observation's, how often it was sent this episode) help it read the goal. PPO has
a value head and GAE; RLOO and GRPO play ``group_size`` episodes of each game and use the other
episodes' mean return (RLOO: leave-one-out) or the group's mean and spread (GRPO) as the
baseline; all three take clipped policy-gradient steps.

    python baselines/text_recipe.py [--seeds 3] [--iterations 30] [--out docs/text_recipe]

prints the table (success and progress per algorithm and reward on the train and held-out
levels, mean and 95 % t-interval over seeds) and writes the training curves as PNG (about 3
CPU-minutes with 3 seeds). Needs the ``train`` extra (PyTorch) and, for the curves, ``plots``
(matplotlib). Results and how they compare with the paper: the docs' "Text agents: the RL
recipe" page.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import numpy as np

import envzoo
from envzoo.core.extras import require
from envzoo.text.features import BUCKETS, GENERIC_FEATURES, command_features, state_tokens

ID = "envzoo/Household-v0"
#: The ladder: houses growing in rooms, receptacles and objects, one task type (pick and place).
LEVELS = {
    "L1": {"num_rooms": 1, "receptacles_per_room": 4, "num_objects": 3},
    "L2": {"num_rooms": 1, "receptacles_per_room": 6, "num_objects": 6},
    "L3": {"num_rooms": 2, "receptacles_per_room": 6, "num_objects": 8},
    "L4": {"num_rooms": 3, "receptacles_per_room": 8, "num_objects": 12},
}
TASK_TYPES = "pick_and_place_simple"
TRAIN_LEVELS = ("L1", "L2")
HELD_OUT_LEVELS = ("L3", "L4")
ALGORITHMS = ("ppo", "rloo", "grpo")
REWARDS = ("dense", "sparse")
#: Seeds of evaluation games: far from the training games' seeds.
EVAL_SEED_BASE = 10**6


@dataclass
class Config:
    algorithm: str = "ppo"
    reward: str = "dense"
    seed: int = 0
    train_levels: tuple[str, ...] = TRAIN_LEVELS
    iterations: int = 30
    episodes_per_iteration: int = 16
    group_size: int = 4  # RLOO, GRPO: episodes per game
    horizon: int = 30
    learning_rate: float = 3e-3
    epochs: int = 4
    clip: float = 0.2
    gamma: float = 0.99
    gae_lambda: float = 0.95
    entropy: float = 0.01
    dim: int = 32


@dataclass
class Episode:
    level: str
    game_seed: int
    states: list = field(default_factory=list)  # per step: hashed token ids of the state
    actions: list = field(default_factory=list)  # per step: (token ids per command, extra features)
    chosen: list = field(default_factory=list)
    log_probs: list = field(default_factory=list)
    values: list = field(default_factory=list)
    rewards: list = field(default_factory=list)
    metrics: dict = field(default_factory=dict)
    terminal: bool = False  # ended by the goal (not by the horizon)


# ---------------------------------------------------------------- model
def _model(dim: int):
    torch = require("train", "torch")
    nn = torch.nn

    class Scorer(nn.Module):
        """Scores (state, command) pairs; a value head on the state."""

        def __init__(self):
            super().__init__()
            self.embed = nn.EmbeddingBag(BUCKETS, dim, mode="mean")
            self.state = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())
            self.command = nn.Sequential(nn.Linear(dim + GENERIC_FEATURES, dim), nn.Tanh())
            self.score = nn.Sequential(nn.Linear(3 * dim, dim), nn.Tanh(), nn.Linear(dim, 1))
            self.value = nn.Sequential(nn.Linear(dim, dim), nn.Tanh(), nn.Linear(dim, 1))

        def forward(self, states, commands):
            """``states``: S token lists; ``commands``: per state, a list of (tokens, extra).
            Returns the (S, A_max) logits (-1e9, probability 0, where a state has fewer commands)
            and (S,) values."""
            hidden = self.state(self.embed(*_bag(torch, states)))
            flat = [pair for options in commands for pair in options]
            command_hidden = self.command(torch.cat([self.embed(*_bag(torch, [tokens for tokens, _ in flat])),
                                                     torch.tensor([extra for _, extra in flat], dtype=torch.float32)],
                                                    dim=1))
            counts = [len(options) for options in commands]
            owner = torch.repeat_interleave(torch.arange(len(commands)), torch.tensor(counts))
            pair = hidden[owner]
            scores = self.score(torch.cat([pair, command_hidden, pair * command_hidden], dim=1)).squeeze(1)
            logits = torch.full((len(commands), max(counts)), -1e9)  # finite: no NaN in the entropy's gradient
            slot = torch.cat([torch.arange(count) for count in counts])
            logits = logits.index_put((owner, slot), scores)
            return logits, self.value(hidden).squeeze(1)

    return torch, Scorer()


def _bag(torch, token_lists):
    offsets = np.cumsum([0] + [len(tokens) for tokens in token_lists[:-1]])
    flat = [token for tokens in token_lists for token in tokens]
    return torch.tensor(flat, dtype=torch.long), torch.tensor(offsets, dtype=torch.long)


# ---------------------------------------------------------------- rollouts
def play(torch, model, games: list[tuple[str, int]], reward: str, horizon: int, rng: np.random.Generator,
         greedy: bool = False) -> list[Episode]:
    """One episode of each (level, game seed), all stepped together, commands sampled from the
    policy (or its most likely one, ``greedy``)."""
    envs = [envzoo.make(ID, task_types=TASK_TYPES, reward=reward, max_episode_steps=horizon, **LEVELS[level])
            for level, _ in games]
    episodes = [Episode(level, seed) for level, seed in games]
    views = []  # per env: (goal, observation, last command, commands sent, admissible)
    for env, (level, seed) in zip(envs, games):
        observation, info = env.reset(seed=seed)
        views.append([info["goal"], observation, "", {}, info["admissible_commands"]])
    active = list(range(len(envs)))
    with torch.no_grad():
        while active:
            states = [state_tokens(*views[i][:3]) for i in active]
            options = [[command_features(c, views[i][0], views[i][1], views[i][3]) for c in views[i][4]]
                       for i in active]
            logits, values = model(states, options)
            probabilities = torch.softmax(logits, dim=1).numpy()
            still = []
            for row, i in enumerate(active):
                p = probabilities[row, :len(options[row])]
                choice = int(np.argmax(p)) if greedy else int(rng.choice(len(p), p=p / p.sum()))
                command = views[i][4][choice]
                observation, r, terminated, truncated, info = envs[i].step(command)
                episode = episodes[i]
                episode.states.append(states[row])
                episode.actions.append(options[row])
                episode.chosen.append(choice)
                episode.log_probs.append(float(np.log(p[choice])))
                episode.values.append(float(values[row]))
                episode.rewards.append(float(r))
                views[i][3][command] = views[i][3].get(command, 0) + 1
                views[i][1:3] = [observation, command]
                views[i][4] = info["admissible_commands"]
                if terminated or truncated:
                    episode.metrics = info["metrics"]
                    episode.terminal = terminated
                else:
                    still.append(i)
            active = still
    return episodes


def random_play(games: list[tuple[str, int]], horizon: int, rng: np.random.Generator) -> list[dict]:
    """The metrics of uniformly random admissible play on each game: the floor."""
    out = []
    for level, seed in games:
        env = envzoo.make(ID, task_types=TASK_TYPES, max_episode_steps=horizon, **LEVELS[level])
        observation, info = env.reset(seed=seed)
        while True:
            commands = info["admissible_commands"]
            observation, r, terminated, truncated, info = env.step(commands[int(rng.integers(len(commands)))])
            if terminated or truncated:
                out.append(info["metrics"])
                break
    return out


# ---------------------------------------------------------------- advantages
def advantages(episodes: list[Episode], config: Config) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Per episode, the advantage and the return target of each step: GAE over the value head
    (PPO), or the episode's return less its group's baseline on every step (RLOO, GRPO)."""
    if config.algorithm == "ppo":
        advantage, target = [], []
        for episode in episodes:
            values = np.array(episode.values + [0.0])
            if not episode.terminal:
                values[-1] = values[-2]  # truncated: bootstrap from the last value
            deltas = np.array(episode.rewards) + config.gamma * values[1:] - values[:-1]
            gae = np.zeros(len(deltas))
            running = 0.0
            for t in reversed(range(len(deltas))):
                running = deltas[t] + config.gamma * config.gae_lambda * running
                gae[t] = running
            advantage.append(gae)
            target.append(gae + values[:-1])
        return advantage, target
    returns = np.array([sum(episode.rewards) for episode in episodes])
    groups = returns.reshape(-1, config.group_size)
    if config.algorithm == "rloo":
        baseline = (groups.sum(axis=1, keepdims=True) - groups) / (config.group_size - 1)
        scaled = groups - baseline
    else:  # grpo
        scaled = (groups - groups.mean(axis=1, keepdims=True)) / (groups.std(axis=1, keepdims=True) + 1e-6)
    scaled = scaled.ravel()
    advantage = [np.full(len(episode.rewards), a) for episode, a in zip(episodes, scaled)]
    return advantage, [np.zeros(len(episode.rewards)) for episode in episodes]


def update(torch, model, optimizer, episodes: list[Episode], config: Config, rng: np.random.Generator) -> None:
    """``config.epochs`` passes of clipped policy-gradient steps over the batch, in minibatches."""
    advantage, target = advantages(episodes, config)
    states = [s for e in episodes for s in e.states]
    actions = [a for e in episodes for a in e.actions]
    chosen = torch.tensor([c for e in episodes for c in e.chosen])
    old = torch.tensor([p for e in episodes for p in e.log_probs])
    advantage = torch.tensor(np.concatenate(advantage), dtype=torch.float32)
    if config.algorithm == "ppo":
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    target = torch.tensor(np.concatenate(target), dtype=torch.float32)
    steps = len(states)
    for _ in range(config.epochs):
        order = rng.permutation(steps)
        for start in range(0, steps, 128):
            index = order[start:start + 128]
            logits, values = model([states[i] for i in index], [actions[i] for i in index])
            log_probs = torch.log_softmax(logits, dim=1)
            new = log_probs[torch.arange(len(index)), chosen[index]]
            ratio = torch.exp(new - old[index])
            a = advantage[index]
            policy_loss = -torch.min(ratio * a, torch.clamp(ratio, 1 - config.clip, 1 + config.clip) * a).mean()
            probabilities = torch.exp(log_probs)
            entropy = -(probabilities * log_probs).sum(dim=1).mean()
            loss = policy_loss - config.entropy * entropy
            if config.algorithm == "ppo":
                loss = loss + 0.5 * ((values - target[index]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()


# ---------------------------------------------------------------- training and evaluation
def train(config: Config, log=None):
    """Trains a policy; returns (model, curve): the curve is one (env steps so far, training
    success, training progress) row per iteration."""
    torch = require("train", "torch")
    torch.manual_seed(config.seed)  # the same initial weights for a seed
    torch.set_num_threads(1)  # tiny matrices: threads cost more than they give
    torch, model = _model(config.dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=config.learning_rate)
    rng = np.random.default_rng(config.seed)
    grouped = config.algorithm != "ppo"
    curve, steps = [], 0
    for iteration in range(config.iterations):
        count = config.episodes_per_iteration // (config.group_size if grouped else 1)
        games = [(config.train_levels[int(rng.integers(len(config.train_levels)))], int(rng.integers(EVAL_SEED_BASE)))
                 for _ in range(count)]
        if grouped:
            games = [game for game in games for _ in range(config.group_size)]
        episodes = play(torch, model, games, config.reward, config.horizon, rng)
        steps += sum(len(e.rewards) for e in episodes)
        curve.append((steps, np.mean([e.metrics["success"] for e in episodes]),
                      np.mean([e.metrics["progress"] for e in episodes])))
        update(torch, model, optimizer, episodes, config, rng)
        if log:
            log(f"{config.algorithm}/{config.reward}/seed {config.seed} iteration {iteration}: "
                f"success {curve[-1][1]:.2f}, progress {curve[-1][2]:.0f}")
    return (torch, model), curve


def evaluate(trained, level: str, episodes: int, horizon: int, seed: int = 0) -> dict[str, float]:
    """Success (%) and progress (0-100) of the trained policy (sampling) on ``episodes`` games of
    ``level`` never trained on."""
    torch, model = trained
    games = [(level, EVAL_SEED_BASE + i) for i in range(episodes)]
    played = play(torch, model, games, "sparse", horizon, np.random.default_rng(seed))
    return {"success": 100 * np.mean([e.metrics["success"] for e in played]),
            "progress": np.mean([e.metrics["progress"] for e in played])}


def random_baseline(level: str, episodes: int, horizon: int) -> dict[str, float]:
    played = random_play([(level, EVAL_SEED_BASE + i) for i in range(episodes)], horizon, np.random.default_rng(0))
    return {"success": 100 * np.mean([m["success"] for m in played]),
            "progress": np.mean([m["progress"] for m in played])}


# ---------------------------------------------------------------- the table and the curves
#: Two-sided 95 % Student t quantiles by degrees of freedom.
_T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26}


def interval(values) -> str:
    """``mean ± half-width`` of the 95 % t-interval over seeds."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return f"{values.mean():.0f}"
    half = _T95.get(len(values) - 1, 1.96) * values.std(ddof=1) / np.sqrt(len(values))
    return f"{values.mean():.0f} ± {half:.0f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS), choices=ALGORITHMS)
    parser.add_argument("--rewards", nargs="+", default=list(REWARDS), choices=REWARDS)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=Config.iterations)
    parser.add_argument("--eval-episodes", type=int, default=40)
    parser.add_argument("--out", default="text_recipe", help="path prefix of the curves' PNG")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    levels = TRAIN_LEVELS + HELD_OUT_LEVELS
    start = time.perf_counter()
    results, curves = {}, {}
    for algorithm in args.algorithms:
        for reward in args.rewards:
            for seed in range(args.seeds):
                config = Config(algorithm=algorithm, reward=reward, seed=seed, iterations=args.iterations)
                trained, curve = train(config, print if args.verbose else None)
                curves.setdefault((algorithm, reward), []).append(curve)
                for level in levels:
                    results.setdefault((algorithm, reward, level), []).append(
                        evaluate(trained, level, args.eval_episodes, config.horizon, seed))
                print(f"trained {algorithm}/{reward}/seed {seed} ({time.perf_counter() - start:.0f} s so far)")
    horizon = Config.horizon
    baseline = {level: random_baseline(level, args.eval_episodes, horizon) for level in levels}
    header = " | ".join(f"{level} {'train' if level in TRAIN_LEVELS else 'held-out'}" for level in levels)
    print(f"\nSuccess % / progress (0-100) on {args.eval_episodes} unseen games per level, mean ± 95 % t-interval "
          f"over {args.seeds} seeds ({time.perf_counter() - start:.0f} s):\n")
    print(f"| algorithm | reward | {header} |")
    print("|---|---|" + "---|" * len(levels))
    for algorithm in args.algorithms:
        for reward in args.rewards:
            cells = [f"{interval([r['success'] for r in results[algorithm, reward, level]])} / "
                     f"{interval([r['progress'] for r in results[algorithm, reward, level]])}" for level in levels]
            print(f"| {algorithm} | {reward} | " + " | ".join(cells) + " |")
    print("| random admissible | - | " + " | ".join(f"{baseline[level]['success']:.0f} / "
                                                    f"{baseline[level]['progress']:.0f}" for level in levels) + " |")
    configs = [(algorithm, reward) for algorithm in args.algorithms for reward in args.rewards]
    if len(configs) > 2:
        def mean_progress(config, which):
            return np.mean([r["progress"] for level in which for r in results[(*config, level)]])
        rho = rank_correlation([mean_progress(c, TRAIN_LEVELS) for c in configs],
                               [mean_progress(c, HELD_OUT_LEVELS) for c in configs])
        print(f"\nDo the easy levels predict the hard ones? Spearman rank correlation of the {len(configs)} "
              f"configurations' mean progress on the train levels and on the held-out levels: {rho:.2f}")
    plot_curves(curves, args.out)


def trailing_mean(values, window: int) -> np.ndarray:
    """The mean of each value and the ``window - 1`` before it (fewer at the start)."""
    sums = np.cumsum(np.concatenate([[0.0], values]))
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - window, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


def rank_correlation(a, b) -> float:
    """Spearman's rank correlation of two samples (no ties expected: means of many episodes)."""
    ranks_a, ranks_b = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ranks_a, ranks_b)[0, 1])


def plot_curves(curves: dict, prefix: str) -> None:
    """Training success against env steps, mean over seeds with the seeds' range shaded."""
    try:
        import matplotlib
    except ImportError:
        print("matplotlib missing (extra plots): no curves written")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for (algorithm, reward), runs in curves.items():
        axis = axes[0 if reward == "dense" else 1]
        length = min(len(run) for run in runs)
        steps = np.mean([[row[0] for row in run[:length]] for run in runs], axis=0)
        success = np.array([[row[1] for row in run[:length]] for run in runs])
        smooth = np.array([trailing_mean(s, 5) for s in success])
        axis.plot(steps, smooth.mean(axis=0), label=algorithm)
        axis.fill_between(steps, smooth.min(axis=0), smooth.max(axis=0), alpha=0.2)
    for axis, reward in zip(axes, ("dense", "sparse")):
        axis.set_title(f"{reward} reward, train levels {'+'.join(TRAIN_LEVELS)}")
        axis.set_xlabel("env steps")
        if axis.lines:
            axis.legend()
    axes[0].set_ylabel("training success (mean of the last 5 iterations)")
    figure.tight_layout()
    figure.savefig(f"{prefix}_curves.png", dpi=100)
    print(f"curves: {prefix}_curves.png")


if __name__ == "__main__":
    main()
