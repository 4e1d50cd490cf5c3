# %% [markdown]
# # Lesson 01: MDPs and dynamic programming, with exact answers
#
# A **Markov decision process** is a set of states, a set of actions, transition probabilities
# $P(s' \mid s, a)$ and mean rewards $R(s, a)$. With a finite horizon $H$, the best expected
# reward from state $s$ with $H - h$ steps to go obeys Bellman's equation
#
# $$V^*_h(s) = \max_a \Big[ R(s, a) + \sum_{s'} P(s' \mid s, a)\, V^*_{h+1}(s') \Big], \qquad V^*_H = 0 .$$
#
# Solving it from the last step backwards is **backward induction**: exact, in $H \cdot S^2 A$
# operations. Every later lesson trains learners that only *estimate* these values; here we
# compute them exactly, on an environment whose model is known: `envzoo/RiverSwimHeavy-v0`.
#
# **RiverSwim** (Strehl & Littman) is a river of 6 states. Swimming *left* (action 0) always
# works but pays only 0.005 at the bank (state 0). Swimming *right* (action 1) fights the
# current: it mostly fails, but the far end pays 1 a step. A myopic agent stays at the bank; a
# far-sighted one swims. Where exactly does the trade-off tip? Dynamic programming answers that.
#
# Runs in about 10 s on a laptop CPU; no extra needed beyond `envzoo[course]`.

# %%
import gymnasium as gym
import matplotlib.pyplot as plt
import numpy as np

import envzoo  # noqa: F401  (registers the envzoo/ ids)
from envzoo.heavytails import planning

# %% [markdown]
# ## The environment
#
# The env knows its own model (`env.unwrapped.params`): `P` is (S, A, S), `R` is (S, A). The
# observation is (state, step). Rewards carry heavy-tailed noise (lesson 04 is about that); the
# *mean* rewards are what dynamic programming needs.

# %%
env = gym.make("envzoo/RiverSwimHeavy-v0", render_mode="rgb_array")
params = env.unwrapped.params
P, R, H = params.P, params.R, params.horizon
print("states, actions:", R.shape, " horizon:", H)
print("mean rewards R(s, a):\n", R)
print("P(. | s=2, right):", P[2, 1])
observation, info = env.reset(seed=0)
plt.imshow(env.render())
plt.axis("off")
plt.title("RiverSwimHeavy-v0 at the start")
plt.show()

# %% [markdown]
# ## Backward induction, written out
#
# One line of linear algebra per step: `P @ V` contracts the next state, giving the expected
# next value of every (state, action) pair.

# %%
def optimal_values(P, R, horizon):
    V = np.zeros((horizon + 1, R.shape[0]))
    Q = np.zeros((horizon, *R.shape))
    for h in reversed(range(horizon)):
        Q[h] = R + P @ V[h + 1]
        V[h] = Q[h].max(axis=1)
    return V, Q


V, Q = optimal_values(P, R, H)
print("V*_0 from the bank:", V[0, 0])
print("envzoo's planner agrees:", np.allclose(V, planning.backward_induction(P, R, H)[0]))

# %% [markdown]
# ## The value function as a picture
#
# The heat map shows $V^*_h(s)$: value grows with the steps left and towards the far end. The
# arrows show the optimal action: near the end of the episode, swimming right no longer pays,
# because the far end cannot be reached in time.

# %%
policy = Q.argmax(axis=2)
fig, ax = plt.subplots(figsize=(7, 4))
image = ax.imshow(V[:H].T, origin="lower", aspect="auto", cmap="viridis")
for h in range(H):
    for s in range(R.shape[0]):
        ax.text(h, s, "→" if policy[h, s] else "←", ha="center", va="center", color="white", fontsize=9)
ax.set_xlabel("step h")
ax.set_ylabel("state s (0 = bank)")
ax.set_title("V*_h(s) on RiverSwim and the optimal action")
fig.colorbar(image, label="optimal expected reward to go")
plt.show()

# %% [markdown]
# ## Evaluating a policy, exactly and by sampling
#
# The value of a fixed policy obeys the same recursion without the max. Here the *lazy* policy
# (always left) and the optimal one are scored exactly and by Monte Carlo in the env. The env
# also reports each step's **regret** $V^*_h(s) - Q^*_h(s, a)$, whose episode sum has expectation
# $V^*_0 - V^\pi_0$ exactly: a learning signal with no noise from the rewards at all.

# %%
EPISODES = 200  # raise for tighter Monte Carlo estimates

lazy = np.zeros((H, R.shape[0]), dtype=int)
for name, pi in (("always left", lazy), ("optimal", policy)):
    exact = planning.policy_value(P, R, pi)[0, 0]
    regrets = []
    for episode in range(EPISODES):
        (state, h), _ = env.reset(seed=episode)
        done = False
        while not done:
            (state, h), reward, terminated, truncated, info = env.step(int(pi[h, state]))
            done = terminated or truncated
        regrets.append(info["metrics"]["episode_regret"])
    print(f"{name:12s} exact V = {exact:.4f}   V* - V = {V[0, 0] - exact:.4f}   "
          f"mean regret over {EPISODES} episodes = {np.mean(regrets):.4f} ± {1.96 * np.std(regrets) / EPISODES**0.5:.4f}")

# %% [markdown]
# ## How far ahead must the agent look?
#
# The figure plots $Q^*_0(0, \text{right}) - Q^*_0(0, \text{left})$ against the horizon: where it
# crosses zero, swimming becomes worth it. Exercise 3 asks for the crossing exactly.

# %%
horizons = np.arange(1, 31)
gaps = [np.subtract(*optimal_values(P, R, h)[1][0, 0, ::-1]) for h in horizons]
plt.plot(horizons, gaps, marker="o")
plt.axhline(0, color="grey", lw=1)
plt.xlabel("horizon H")
plt.ylabel("Q*(bank, right) - Q*(bank, left)")
plt.title("When does swimming pay?")
plt.show()

# %% [markdown]
# ## Exercises
#
# Fill in `course/exercises/01_dynamic_programming.py`, then run `envzoo course check 01` from the
# repository's root. The checker compares with envzoo's exact planner on three MDPs (RiverSwim,
# Strens's chain, a random Garnet) and tells you what to look at.
#
# 1. `backward_induction(P, R, horizon)`: return `(V, Q)` with the shapes of the docstring.
# 2. `policy_value(P, R, policy)`: the exact value of a deterministic step-dependent policy.
# 3. `FIRST_SWIM_HORIZON`: the shortest horizon at which swimming right is optimal at step 0
#    from the bank.
#
# Going further: make RiverSwim longer (`gym.make(..., states=10)`): how does the first horizon
# that makes swimming pay grow with the river's length?

# %%
from envzoo.tools.course import report  # noqa: E402

report("01")
