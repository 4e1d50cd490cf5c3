# %% [markdown]
# # Lesson 05: policy gradients on Avellaneda–Stoikov market making, and why the closed form wins
#
# A market maker quotes a bid below the mid price and an ask above it. A quote at depth δ from
# the mid is hit at intensity $A e^{-k\delta}$: deeper quotes earn more per fill but fill less.
# Every fill changes the inventory q, and the mid moves as a Brownian motion, so inventory is
# risk. Avellaneda & Stoikov (2008) solved the problem of a risk-averse maker (risk aversion γ)
# in closed form: quote around the *reservation price* $r = s - q\gamma\sigma^2(T-t)$ with total
# spread $\gamma\sigma^2(T-t) + \frac{2}{\gamma}\ln(1 + \gamma/k)$.
#
# `envzoo/MarketMakingAS-v1` is that model. Here we learn a quoting rule with the simplest
# policy-gradient method, **REINFORCE**, and compare it with the closed forms. The lesson's point:
# where a model has a closed form, the learner's job is to *find it again*, slowly and noisily;
# learning pays where there is none (real books: `MarketMaking-v1`).
#
# Runs in about 20 s (`ITERATIONS`, `EPISODES_PER_ITERATION`: raise them for a learner that gets
# closer). It uses the native vector env: 256 episodes run as one batched simulation.

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401
from envzoo.core.policy import Policy
from envzoo.marketmaking.avellaneda_stoikov.policies import AvellanedaStoikov, SymmetricSpread
from envzoo.tools.rollout import run_episode

ITERATIONS = 80
EPISODES_PER_ITERATION = 256
EXPLORATION = 0.3     # standard deviation of the Gaussian policy's depths
STEP = 0.03           # Adam's step size

single = gym.make("envzoo/MarketMakingAS-v1", render_mode="rgb_array")
params = single.unwrapped.params
print(f"σ = {params.volatility}, k = {params.fill_exponent}, A = {params.arrival_rate}, "
      f"{params.n_steps} steps of {params.dt}; observation: (time left / T, inventory, mid - s0, PnL)")
single.reset(seed=0)
for _ in range(100):
    single.step(np.array([0.7, 0.7], dtype=np.float32))
plt.imshow(single.render())
plt.axis("off")
plt.title("MarketMakingAS-v1, 100 steps of symmetric quotes")
plt.show()

# %% [markdown]
# ## The policy and its gradient
#
# A linear Gaussian policy with two parameters θ = (h, κ): bid depth ~ N(h + κq, σ²), ask depth
# ~ N(h − κq, σ²). h is the half-spread, κ the inventory skew (the closed form's is
# γσ²(T−t)). REINFORCE estimates
#
# $$\nabla_\theta J = \mathbb{E}\Big[\sum_t \nabla_\theta \log \pi_\theta(a_t \mid s_t)\,\big(G_t - b_t\big)\Big]$$
#
# with $G_t$ the reward-to-go (exercise 2) and $b_t$ its mean over the batch (a baseline that
# cuts the variance). The reward is the step's change in marked-to-market PnL. The step is
# Adam's: each parameter's gradient divided by its running scale, since the skew's gradient
# (multiplied by the inventory) is far larger and noisier than the half-spread's; with one
# common step size the skew wanders off and the inventory explodes.

# %%
def reinforce(seed=0, theta=(1.5, 0.0)):
    envs = gym.make_vec("envzoo/MarketMakingAS-v1", num_envs=EPISODES_PER_ITERATION)
    generator = np.random.default_rng(seed)
    theta, history = np.array(theta, dtype=float), []
    first, second = np.zeros(2), np.zeros(2)        # Adam's running moments of the gradient
    for iteration in range(ITERATIONS):
        observation, _ = envs.reset(seed=seed * 100_000 + iteration * EPISODES_PER_ITERATION)
        scores, rewards = [], []
        for _ in range(params.n_steps):
            q = observation[:, 1]
            mean = np.stack([theta[0] + theta[1] * q, theta[0] - theta[1] * q], axis=1)
            action = mean + EXPLORATION * generator.normal(size=mean.shape)
            z = (action - mean) / EXPLORATION**2            # the gradient of log π with respect to the mean
            scores.append(np.stack([z[:, 0] + z[:, 1], (z[:, 0] - z[:, 1]) * q], axis=1))
            observation, reward, *_ = envs.step(np.clip(action, 0, params.max_depth).astype(np.float32))
            rewards.append(reward)
        rewards, scores = np.array(rewards), np.array(scores)
        to_go = np.cumsum(rewards[::-1], axis=0)[::-1]
        gradient = ((to_go - to_go.mean(axis=1, keepdims=True))[..., None] * scores).sum(axis=0).mean(axis=0)
        history.append((*theta, rewards.sum(axis=0).mean(), rewards.sum(axis=0).std()))
        first, second = 0.9 * first + 0.1 * gradient, 0.999 * second + 0.001 * gradient**2
        step = (first / (1 - 0.9 ** (iteration + 1))) / (np.sqrt(second / (1 - 0.999 ** (iteration + 1))) + 1e-8)
        theta = theta + STEP * step                     # ascent: we maximize the return
    return theta, np.array(history)


theta, history = reinforce()
print("learnt (h, κ):", theta.round(3), "  risk-neutral optimum h = 1/k =", round(1 / params.fill_exponent, 3))

# %% [markdown]
# ## Learning curves
#
# Left: the mean episode PnL of each batch of 256 exploring episodes, with a 95 % interval of the
# mean. Right: the half-spread h against the risk-neutral optimum 1/k (exercise 1 derives it:
# the mid is a martingale, so inventory adds risk but no expected PnL, and each side maximizes
# δ·A·e^{−kδ} on its own).

# %%
iterations = np.arange(ITERATIONS)
half_width = 1.96 * history[:, 3] / np.sqrt(EPISODES_PER_ITERATION)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
left.plot(iterations, history[:, 2])
left.fill_between(iterations, history[:, 2] - half_width, history[:, 2] + half_width, alpha=0.3)
left.set_xlabel("iteration")
left.set_ylabel("mean episode PnL (exploring)")
right.plot(iterations, history[:, 0], label="h (half-spread)")
right.plot(iterations, history[:, 1], label="κ (skew)")
right.axhline(1 / params.fill_exponent, color="grey", linestyle="--", label="1/k")
right.set_xlabel("iteration")
right.legend()
fig.suptitle("REINFORCE on MarketMakingAS-v1")
plt.show()

# %% [markdown]
# ## The learnt rule against the closed forms
#
# 300 evaluation episodes each (seeds the learner never saw): the learnt rule (without
# exploration noise), the risk-neutral closed form (δ = 1/k on both sides) and Avellaneda–Stoikov
# with γ = 0.1. The risk-neutral rule has the highest mean; AS gives up a little of it for a
# much narrower spread of outcomes.

# %%
class Linear(Policy):
    """The learnt rule, without exploration noise."""

    def __call__(self, observation, info=None):
        q = observation[1]
        return np.clip([theta[0] + theta[1] * q, theta[0] - theta[1] * q], 0, params.max_depth).astype(np.float32)


rules = {"learnt (REINFORCE)": Linear(single),
         "risk-neutral 1/k": SymmetricSpread(single, half_spread=1 / params.fill_exponent),
         "Avellaneda-Stoikov γ=0.1": AvellanedaStoikov(single, gamma=0.1)}
pnls = {name: [run_episode(single, rule, seed=50_000 + s).metrics["pnl"] for s in range(300)]
        for name, rule in rules.items()}
for name, values in pnls.items():
    print(f"{name:26s} PnL {np.mean(values):6.2f} ± {1.96 * np.std(values) / np.sqrt(len(values)):.2f}   "
          f"std {np.std(values):5.2f}")
plt.boxplot(list(pnls.values()), tick_labels=[name.split(" (")[0] for name in pnls])
plt.ylabel("episode PnL")
plt.title("300 evaluation episodes")
plt.show()

# %% [markdown]
# The learner used 80 x 256 = 20,480 episodes to get near what one line of calculus gives (h
# still above 1/k when it stops). Its skew κ ends up positive: skewing quotes away from the
# inventory costs a little mean PnL and removes much of the spread of outcomes, which the
# baseline-weighted gradient of a finite batch rewards too, so the learnt rule lands between
# the two closed forms. The reward is mostly the noise of the mid moving the inventory's value:
# that variance, not the algorithm, is what makes policy gradients slow here.
#
# ## Exercises
#
# Fill in `course/exercises/05_policy_gradients.py`, then run `envzoo course check 05`.
#
# 1. `RISK_NEUTRAL_DEPTH`: the depth maximizing δ·A·e^{−kδ} for k = 1.5.
# 2. `reward_to_go(rewards, discount)`: the weights of the REINFORCE estimator above.
# 3. `as_depths(...)`: the Avellaneda–Stoikov closed form.
#
# Going further: train with `reward="cj"` (a running inventory penalty): which skew κ does the
# learner find now, and how does it compare with γσ²(T−t)?

# %%
from envzoo.tools.course import report  # noqa: E402

report("05")
