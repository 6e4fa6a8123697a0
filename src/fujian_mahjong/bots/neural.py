"""``neural``: a policy-value network played in plain numpy (docs/bots.md, "The neural bot").

The network reads the seat's observation vector (``fujian_mahjong.rl.encoding``, built
from the seat view only, R12: docs/rl.md has the table), scales it by fixed constants
stored with the weights, and passes it through a small multilayer perceptron (ReLU hidden
layers) with two heads: 179 action logits and a value (the hand's expected points from the
seat's view, in units of ``value_scale`` points). The bot plays the legal action with the
highest logit (a masked argmax: deterministic; a tie goes to the lower index); an action
that is the only legal one is played without the network.

The weights ship inside the package (``bots/neural_weights.npz``, arrays ``w0, b0, w1, b1,
…, wp, bp, wv, bv, scale`` and a JSON ``meta`` string saying how they were made); they are
made by ``python -m fujian_mahjong.rl.train`` (docs/rl.md, "Training the neural bot").
``FJMJ_NEURAL_WEIGHTS=path.npz`` plays other weights (the pipeline's evaluation uses it).
Only numpy is needed to play.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from fujian_mahjong.analysis import shanten_keys
from fujian_mahjong.analysis.core import split_keys34
from fujian_mahjong.bots.base import Decision
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.rl.encoding import (
    ACTION_NAMES,
    N_ACTIONS,
    N_KINDS,
    O_CLAIM,
    O_GOLD,
    O_HAND,
    O_SEATS,
    O_UNSEEN,
    OBS_SIZE,
    SEAT_FEATURES,
    Encoder,
)
from fujian_mahjong.rules import get_profile
from fujian_mahjong.tiles import name as tile_name

WEIGHTS = Path(__file__).with_name("neural_weights.npz")
WEIGHTS_ENV = "FJMJ_NEURAL_WEIGHTS"
F32 = npt.NDArray[np.float32]


# ------------------------------------------------------------------------- hand features
# Computed from the observation alone (so from the seat view, R12): the seat's own tiles
# (O_HAND, golds included), the gold (O_GOLD), its exposed melds (slot 0 of O_SEATS), the
# tile it is asked to answer (O_CLAIM) and the copies it cannot see (O_UNSEEN). They give
# the network what the bots reason with (R7 shanten with golds as wildcards): per kind k,
# whether discarding k keeps the lowest shanten, how much worse it is otherwise, and the
# unseen tiles that would then lower the shanten (effective tiles); the shanten now; and by
# how much each claim would lower it.
F_BEST: Final = 0  # 34: discarding k keeps the lowest shanten
F_WORSE: Final = F_BEST + N_KINDS  # 34: (shanten after discarding k − lowest) / 3, at most 1
F_UKE: Final = F_WORSE + N_KINDS  # 34: effective tiles after discarding k (lowest only) / 40
F_SHANTEN: Final = (
    F_UKE + N_KINDS
)  # 8: one-hot shanten now (−1 … 6+; 3n+2 tiles: the lowest after a discard)
F_CLAIM: Final = F_SHANTEN + 8  # 5: pong, chow low/mid/high, kong: (shanten now − after) / 2
N_FEATURES: Final = F_CLAIM + 5
_MELDS_SLOT0: Final = O_SEATS + SEAT_FEATURES.index("melds")


def _sh(c: list[int], gold: int, melds: int) -> int:
    k0, k1, k2, kh, w = split_keys34(c, gold if gold >= 0 else None)
    return shanten_keys(k0, k1, k2, w, melds, kh)


def hand_features(obs: npt.NDArray[Any]) -> F32:
    """The hand-analysis features of one observation (the block comment above)."""
    f = np.zeros(N_FEATURES, dtype=np.float32)
    c = [int(x) for x in obs[O_HAND : O_HAND + N_KINDS]]
    n = sum(c)
    g = obs[O_GOLD : O_GOLD + N_KINDS]
    gold = int(g.argmax()) if g.any() else -1
    melds = max(0, 5 - int(obs[_MELDS_SLOT0]))
    unseen = obs[O_UNSEEN : O_UNSEEN + N_KINDS]
    if n % 3 == 2:  # a discard is due: try each kind held
        after: dict[int, int] = {}
        for k in range(N_KINDS):
            if c[k]:
                c[k] -= 1
                after[k] = _sh(c, gold, melds)
                c[k] += 1
        if not after:
            return f
        low = min(after.values())
        for k, sk in after.items():
            if sk == low:
                f[F_BEST + k] = 1.0
                c[k] -= 1
                uke = 0.0
                for t in range(N_KINDS):
                    u = unseen[t]
                    if u > 0 and t != k:
                        c[t] += 1
                        if _sh(c, gold, melds) < low:
                            uke += float(u)
                        c[t] -= 1
                c[k] += 1
                f[F_UKE + k] = min(uke / 40.0, 1.0)
            else:
                f[F_WORSE + k] = min((sk - low) / 3.0, 1.0)
        now = low
    else:
        now = _sh(c, gold, melds)
        cl = obs[O_CLAIM : O_CLAIM + N_KINDS]
        if cl.any() and melds > 0:
            t = int(cl.argmax())
            shapes: list[tuple[int, ...]] = [(t, t)]
            r = t % 9 if t < 27 else -1
            shapes += [
                (t + 1, t + 2) if 0 <= r <= 6 else (),
                (t - 1, t + 1) if 1 <= r <= 7 else (),
                (t - 2, t - 1) if r >= 2 else (),
                (t, t, t),
            ]
            for j, used in enumerate(shapes):
                if not used or any(c[u] < used.count(u) for u in set(used)):
                    continue
                for u in used:
                    c[u] -= 1
                f[F_CLAIM + j] = max(-1.0, min(1.0, (now - _sh(c, gold, melds - 1)) / 2.0))
                for u in used:
                    c[u] += 1
    f[F_SHANTEN + max(0, min(now + 1, 7))] = 1.0
    return f


# -------------------------------------------------------------------------- view features
# The quantities the 高手's rules weigh (bots/heuristic.py, bots/strong.py), read from the
# seat view alone (R12: these functions are the bots' own, which see nothing else): per kind
# held at the seat's turn, the 高手's deal-in model (``tile_risk``, points lost by discarding
# it now), heuristic-v1's late-hand danger, how connected the tile is (``_tile_value``), and
# for a ready hand the value of each discard (``ready_choices``: its expected points, and
# whether the hand stays ready); the largest chance that an opponent is ready
# (``quick_threat``); when a discard win is offered, its points now against waiting for a
# self-draw (``wait_value``). They are what the observation's tile counts cannot give a
# small network: the teacher's danger and value arithmetic.
V_RISK: Final = 0  # 34: tile_risk / 20, at most 1
V_DANGER: Final = V_RISK + N_KINDS  # 34: heuristic-v1's danger (0 … 1)
V_CONNECT: Final = V_DANGER + N_KINDS  # 34: _tile_value / 20, in [−1, 1]
V_READY_VALUE: Final = V_CONNECT + N_KINDS  # 34: (ready_choices value − best) / 20, ≥ −1
V_READY: Final = V_READY_VALUE + N_KINDS  # 34: the hand stays ready after discarding k
V_SCALARS: Final = V_READY + N_KINDS  # threat, ready turn, win offered, now/50, (wait−now)/20, p
N_VIEW_FEATURES: Final = V_SCALARS + 6


def view_features(view: SeatView) -> F32:
    """The teacher-quantity features of one seat view (the block comment above)."""
    from fujian_mahjong.bots.heuristic import HeuristicBot, quick_threat
    from fujian_mahjong.bots.strong import ready_choices, tile_risk, wait_value

    f = np.zeros(N_VIEW_FEATURES, dtype=np.float32)
    f[V_SCALARS] = quick_threat(view, 0.0)
    if view.phase == Phase.TURN and any(a.type == "discard" for a in view.legal):
        c = list(view.counts)
        gold = view.gold
        for k, risk in tile_risk(view).items():
            f[V_RISK + k] = min(risk / 20.0, 1.0)
        dg = HeuristicBot._danger(view)
        f[V_DANGER : V_DANGER + len(dg)] = dg
        for k in range(len(c)):
            if c[k]:
                c[k] -= 1
                f[V_CONNECT + k] = max(-1.0, min(1.0, HeuristicBot._tile_value(c, k, gold) / 20.0))
                c[k] += 1
        ch = ready_choices(view)
        if ch:
            top = max(r.value for r in ch.values())
            for k, rc in ch.items():
                f[V_READY_VALUE + k] = max(-1.0, (rc.value - top) / 20.0)
                f[V_READY + k] = float(rc.ready)
            f[V_SCALARS + 1] = 1.0
    elif view.phase == Phase.CLAIMS:
        wv = wait_value(view)
        if wv is not None:
            f[V_SCALARS + 2] = 1.0
            f[V_SCALARS + 3] = min(wv.now / 50.0, 4.0)
            f[V_SCALARS + 4] = max(-2.0, min(2.0, (wv.wait - wv.now) / 20.0))
            f[V_SCALARS + 5] = wv.p
    return f


def with_features(obs: npt.NDArray[Any]) -> F32:
    """Observations (B, OBS_SIZE) with their hand features appended (B, OBS_SIZE + N_FEATURES)."""
    o = np.asarray(obs, dtype=np.float32)
    feats = np.stack([hand_features(row) for row in o]) if len(o) else np.zeros((0, N_FEATURES))
    return np.concatenate([o, feats.astype(np.float32)], axis=1)


def _layers(arrays: dict[str, npt.NDArray[Any]], w: str, b: str) -> list[tuple[F32, F32]]:
    """The hidden layers ``(w0, b0), (w1, b1), …`` stored under these prefixes, in order."""
    out: list[tuple[F32, F32]] = []
    while f"{w}{len(out)}" in arrays:
        i = len(out)
        out.append((arrays[f"{w}{i}"].astype(np.float32), arrays[f"{b}{i}"].astype(np.float32)))
    return out


class PolicyNet:
    """An MLP over the observation: hidden layers ``(w_i, b_i)`` with ReLU, then a policy
    head ``(wp, bp)`` and a value head ``(wv, bv)``; inputs multiplied by ``scale``."""

    def __init__(self, arrays: dict[str, npt.NDArray[Any]], meta: dict[str, Any]) -> None:
        self.layers = _layers(arrays, "w", "b")
        self.wp = arrays["wp"].astype(np.float32)
        self.bp = arrays["bp"].astype(np.float32)
        self.wv = arrays["wv"].astype(np.float32)
        self.bv = arrays["bv"].astype(np.float32)
        self.scale = arrays["scale"].astype(np.float32)
        self.features = bool(meta.get("features", False))
        self.view_features = bool(meta.get("view_features", False))
        self.mask_input = bool(meta.get("mask_input", False))
        inputs = OBS_SIZE + (N_FEATURES if self.features else 0)
        inputs += N_VIEW_FEATURES if self.view_features else 0
        inputs += N_ACTIONS if self.mask_input else 0
        if self.scale.shape != (inputs,) or self.bp.shape != (N_ACTIONS,):
            raise ValueError(
                f"policy weights for {self.scale.shape} inputs and {self.bp.shape} actions; "
                f"this encoding has {inputs} and {N_ACTIONS}"
            )
        self.meta = meta
        self.value_scale = float(meta.get("value_scale", 1.0))
        # the optional advantage head (docs/bots.md, "Learning from rollouts"): a hidden layer
        # ``(wq0, bq0)`` over the last hidden layer, then ``(wq, bq)``: per action the points
        # it is worth against the other candidates, learnt from the teacher's rollouts
        self.q_layers = _layers(arrays, "wq", "bq")
        self.wq = arrays["wq"].astype(np.float32) if "wq" in arrays else None
        self.bq = arrays["bq"].astype(np.float32) if "bq" in arrays else None
        self.q_top = int(meta.get("q_top", 3))
        self.q_margin = float(meta.get("q_margin", 0.0))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PolicyNet:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        meta = json.loads(str(arrays.pop("meta"))) if "meta" in arrays else {}
        return cls(arrays, meta)

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        out: dict[str, npt.NDArray[Any]] = {}
        for i, (w, b) in enumerate(self.layers):
            out[f"w{i}"], out[f"b{i}"] = w, b
        out.update(wp=self.wp, bp=self.bp, wv=self.wv, bv=self.bv, scale=self.scale)
        for i, (w, b) in enumerate(self.q_layers):
            out[f"wq{i}"], out[f"bq{i}"] = w, b
        if self.wq is not None and self.bq is not None:
            out.update(wq=self.wq, bq=self.bq)
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        arrays: dict[str, Any] = self.arrays()
        arrays["meta"] = np.array(json.dumps(self.meta, sort_keys=True))
        np.savez_compressed(path, **arrays)

    @property
    def parameters(self) -> int:
        return sum(a.size for k, a in self.arrays().items() if k != "scale")

    def forward(
        self,
        obs: npt.NDArray[Any],
        mask: npt.NDArray[Any] | None = None,
        vfeat: npt.NDArray[Any] | None = None,
    ) -> tuple[F32, F32]:
        """(logits (B, N_ACTIONS), value (B,) in points) for observations (B, OBS_SIZE) and,
        for a network that reads them, the legal masks (B, N_ACTIONS) and the view features
        (B, N_VIEW_FEATURES: :func:`view_features` of each row's seat view)."""
        h = self.hidden(obs, mask, vfeat)
        return h @ self.wp + self.bp, (h @ self.wv + self.bv)[:, 0] * self.value_scale

    def hidden(
        self,
        obs: npt.NDArray[Any],
        mask: npt.NDArray[Any] | None = None,
        vfeat: npt.NDArray[Any] | None = None,
    ) -> F32:
        """The last hidden layer (B, width) for the inputs of :meth:`forward`."""
        x = with_features(obs) if self.features else np.asarray(obs, dtype=np.float32)
        if self.view_features:
            if vfeat is None:
                raise ValueError("this policy reads the view features: pass them to forward()")
            x = np.concatenate([x, np.asarray(vfeat, dtype=np.float32)], axis=1)
        if self.mask_input:
            if mask is None:
                raise ValueError("this policy reads the legal mask: pass it to forward()")
            x = np.concatenate([x, np.asarray(mask, dtype=np.float32)], axis=1)
        h: F32 = x * self.scale
        for w, b in self.layers:
            h = np.maximum(h @ w + b, 0.0)
        return h

    @property
    def has_q(self) -> bool:
        return self.wq is not None

    def advantages(self, h: F32) -> F32:
        """The advantage head (B, N_ACTIONS) in points, from :meth:`hidden`'s output."""
        assert self.wq is not None and self.bq is not None
        for w, b in self.q_layers:
            h = np.maximum(h @ w + b, 0.0)
        q: F32 = h @ self.wq + self.bq
        return q

    def choose(self, logits: F32, q: F32 | None, legal: npt.NDArray[np.int64]) -> tuple[int, bool]:
        """(the action index, whether the advantage head moved it) for one row: the masked
        argmax of the logits (a tie goes to the lower index); with an advantage head, of the
        ``q_top`` legal actions the policy rates highest, the one the head values most if it
        gains more than ``q_margin`` points over the policy's choice."""
        z = logits[legal]
        j = int(legal[z == z.max()].min())
        if q is None or len(legal) < 2:
            return j, False
        order = np.lexsort((legal, -z))[: self.q_top]  # by logit, ties to the lower index
        cands = legal[order]
        qc = q[cands]
        k = int(qc.argmax())
        if int(cands[k]) != j and float(qc[k] - q[j]) > self.q_margin:
            return int(cands[k]), True
        return j, False

    def act_batch(
        self,
        obs: npt.NDArray[Any],
        mask: npt.NDArray[Any],
        vfeat: npt.NDArray[Any] | None = None,
    ) -> npt.NDArray[np.int64]:
        """The masked argmax per row (a tie goes to the lower index)."""
        h = self.hidden(obs, mask, vfeat)
        logits = h @ self.wp + self.bp
        if not self.has_q:
            best: npt.NDArray[np.int64] = np.where(mask > 0, logits, -np.inf).argmax(axis=1)
            return best
        q = self.advantages(h)
        return np.array(
            [self.choose(logits[r], q[r], np.flatnonzero(mask[r] > 0))[0] for r in range(len(h))],
            dtype=np.int64,
        )


@lru_cache(maxsize=4)
def _load(path: str) -> PolicyNet:
    return PolicyNet.load(path)


def load_policy(path: str | os.PathLike[str] | None = None) -> PolicyNet:
    """The shipped policy (or ``$FJMJ_NEURAL_WEIGHTS``, or ``path``), loaded once."""
    p = path if path is not None else os.environ.get(WEIGHTS_ENV) or WEIGHTS
    return _load(str(Path(p).resolve()))


@lru_cache(maxsize=16)
def _encoder(profile: str, players: int) -> Encoder:
    return Encoder(get_profile(profile), players)


class NeuralBot:
    """Plays the policy network's masked argmax from the seat view (R12). ``seed`` is
    accepted for the bot protocol and unused: the bot is deterministic."""

    name = "neural"

    def __init__(self, seed: int | str = 0, policy: PolicyNet | None = None) -> None:
        self.policy = policy if policy is not None else load_policy()

    def observe(self, view: SeatView) -> tuple[F32, dict[int, Any]]:
        """The seat's observation (as the RL environments build it) and its legal map."""
        # the streak and the 金坎 declarations are public (R8.5, R9): the JSON view has them
        pub = view.to_json()
        jk = pub.get("jin_kan") or {}
        jin_kan = [str(s) in jk for s in range(view.players)]
        enc = _encoder(view.profile_name, view.players)
        return enc.observe(view, int(pub.get("streak", 0)), jin_kan)

    def act(self, view: SeatView) -> Decision:
        legal = view.legal
        if len(legal) == 1:
            return Decision(legal[0], "the only legal action", "唯一可行的动作")
        obs, lm = self.observe(view)
        idx = np.fromiter(lm, dtype=np.int64, count=len(lm))
        mask = np.zeros((1, N_ACTIONS), dtype=np.float32)
        mask[0, idx] = 1.0
        vf = view_features(view)[None, :] if self.policy.view_features else None
        pol = self.policy
        h = pol.hidden(obs[None, :], mask, vf)
        logits = (h @ pol.wp + pol.bp)[0]
        v = float((h @ pol.wv + pol.bv)[0, 0]) * pol.value_scale
        q = pol.advantages(h)[0] if pol.has_q else None
        j, moved = pol.choose(logits, q, np.sort(idx))  # act_batch's rule
        z = logits[idx]
        e = np.exp(z - z.max())
        p = float(e[idx == j][0] / e.sum())
        if moved and q is not None:
            top = int(idx[z == z.max()].min())
            gain = float(q[j] - q[top])
            return Decision(
                lm[j],
                f"neural policy with rollout advantage: {ACTION_NAMES[j]} rather than "
                f"{ACTION_NAMES[top]} (worth {gain:+.1f} points; probability {p:.0%}; "
                f"hand value {v:+.1f} points)",
                f"神经网络策略 (推演优势): {_zh(j)}, 不选 {_zh(top)} (多 {gain:+.1f} 分; "
                f"概率 {p:.0%}; 预计本局 {v:+.1f} 分)",
            )
        return Decision(
            lm[j],
            f"neural policy: {ACTION_NAMES[j]} (probability {p:.0%}; hand value {v:+.1f} points)",
            f"神经网络策略: {_zh(j)} (概率 {p:.0%}; 预计本局 {v:+.1f} 分)",
        )


# the action index ranges of rl/encoding.py (docs/rl.md) in Chinese
_ZH_TILE_ACTIONS: Final = ("打", "抢金 打", "金坎 打", "暗杠", "加杠")
_ZH_FIXED: Final = ("吃 (低)", "吃 (中)", "吃 (高)", "碰", "明杠", "胡", "三金倒", "抢金", "过")


def _zh(index: int) -> str:
    if index < len(_ZH_TILE_ACTIONS) * N_KINDS:
        return f"{_ZH_TILE_ACTIONS[index // N_KINDS]} {tile_name(index % N_KINDS, 'zh')}"
    return _ZH_FIXED[index - len(_ZH_TILE_ACTIONS) * N_KINDS]
