"""Every reference policy of envzoo/Portfolio-v1 on the test backtest (the last 20 % of the
20 S&P 500 stocks' history, on the first 5 assets), with the registry's default costs.

    python baselines/portfolio_backtest.py [--data sp500-stocks] [--n-assets 5]

The skfolio optimizers need the finance extra (pip install "envzoo[finance]"); they are skipped
without it.
"""

import argparse

import gymnasium as gym

import envzoo
from envzoo.tools.rollout import run_episode

ENV_ID = "envzoo/Portfolio-v1"
KPIS = ("fapv", "annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown", "turnover", "costs_paid")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="sp500-stocks")
    parser.add_argument("--n-assets", type=int, default=5)
    args = parser.parse_args()
    entry = envzoo.env_info(ENV_ID)
    print(f"{ENV_ID} test backtest, data {args.data}, {args.n_assets} assets")
    print(f"{'policy':<18}" + "".join(f"{k:>18}" for k in KPIS))
    for ref in entry.policies:
        if not ref.installed:
            print(f"{ref.name:<18} skipped: {ref.install_hint}")
            continue
        env = gym.make(ENV_ID, split="test", data=args.data, n_assets=args.n_assets)
        metrics = run_episode(env, envzoo.make_policy(ENV_ID, ref.name, env), seed=0).metrics
        print(f"{ref.name:<18}" + "".join(f"{metrics[k]:>18.4f}" for k in KPIS))


if __name__ == "__main__":
    main()
