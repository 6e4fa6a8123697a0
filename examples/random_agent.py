"""A masked random agent on the PettingZoo AEC environment (every seat random).

    make venv    # once: .venv with the rl extra (pettingzoo, gymnasium); or, in a venv of
                 # your own, pip install 'fujian-mahjong[rl]'
    .venv/bin/python examples/random_agent.py --profile fuzhou-doudou --hands 20

Each step reads the acting agent's observation, picks uniformly among the actions its
``action_mask`` allows, and steps; the rewards at the end of each hand are the R10 points.
Errors are one line on standard error: exit 2 for bad input (``--players 5``), 1 when the
rl extra is missing.
"""

from __future__ import annotations

import argparse
import sys

from fujian_mahjong.errors import MahjongError

NEEDS = "needs the rl extra: make venv, or pip install 'fujian-mahjong[rl]'"


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except ImportError as e:
        print(f"random_agent.py: error: {NEEDS} ({e.name or e} is missing)", file=sys.stderr)
        return 1
    except MahjongError as e:
        print(f"random_agent.py: error: {e}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    import numpy as np

    from fujian_mahjong.rl import ACTION_NAMES, raw_env
    from fujian_mahjong.rules import BUILTIN

    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--profile", default="fuzhou-tcy", choices=BUILTIN)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--hands", type=int, default=10)
    ap.add_argument("--seed", default="random-agent")
    ap.add_argument("--render", action="store_true", help="print the table after each hand")
    args = ap.parse_args(argv)

    env = raw_env(
        profile=args.profile,
        players=args.players,
        seed=args.seed,
        render_mode="ansi" if args.render else None,
    )
    rng = np.random.default_rng(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for hand in range(args.hands):
        env.reset()
        steps = 0
        last = ""
        result = None
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                totals[agent] += reward
                result = (info.get("result"), info.get("winner"))
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal))
            last = f"{agent}: {ACTION_NAMES[action]}"
            env.step(action)
            steps += 1
        how, winner = result or (None, None)
        who = f"player_{winner} wins ({how})" if winner is not None else "draw"
        print(f"hand {hand}: {steps} decisions, {who}; last decision {last}")
        if args.render:
            print(env.render())
    print("points:", {a: round(v, 1) for a, v in totals.items()})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
