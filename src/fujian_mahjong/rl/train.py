"""The neural bot's pipeline: generate imitation data, fit the network, evaluate it.

    python -m fujian_mahjong.rl.train gen  --teacher strong-fast --hands 4000 --seed gen0 --out data.npz
    python -m fujian_mahjong.rl.train fit  --data data.npz --seed 0 --epochs 8 --out weights.npz
    python -m fujian_mahjong.rl.train eval --weights weights.npz --opponent heuristic --deals 500
    python -m fujian_mahjong.rl.train roll --hands 1000 --seed roll0 --out roll.npz
    python -m fujian_mahjong.rl.train qfit --data roll.npz --out weights-q.npz

(docs/rl.md, "Training the neural bot"). Everything is numpy: no training library is
needed (the ``train`` extra is empty for now and reserved for a later torch trainer).

* ``gen`` plays ``--hands`` hands of teacher self-play through :class:`VecGames` (the
  teacher sits at every seat and decides from its seat view, R12) and records, for every
  decision with more than one legal action, the seat's observation, its legal mask, the
  teacher's action (the label) and the hand's final points from that seat's view (the
  value target). Teachers: any bot kind, or ``strong-fast`` — the 高手 without its rollout
  search (``StrongBot(max_rollouts=0)``: its rules, deterministic, ~30× faster).
* ``fit`` trains the MLP of ``bots/neural.py`` (on the observation plus its hand features,
  ``--no-features`` for the observation alone) from a seed with Adam on the masked
  cross-entropy of the teacher's action plus a small value loss (the learning rate decays
  linearly to a tenth); hands (not decisions) are split into training and validation sets
  (10%); it keeps the epoch with the lowest validation loss, prints the curves and stores
  them with the weights.
* ``eval`` plays ``fjmj simulate --duplicate`` 1 v 3 (the network against three of
  ``--opponent``) with the given weights and prints the neural bot's row (``--stats``: the
  model card's figures; ``--baseline``: paired against other weights on the same deals).
* ``roll`` and ``qfit``: policy improvement from rollouts — the teacher plays out the
  network's few best candidates at each decision (:func:`rollout_data`), and an advantage
  head is fitted on the playouts (:func:`fit_q`; docs/bots.md, "Learning from rollouts").

Deterministic from the seeds: the same commands give the same data and, with one BLAS
thread (``OPENBLAS_NUM_THREADS=1``), the same weights.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fujian_mahjong.bots import Bot, make_bot
from fujian_mahjong.bots.neural import (
    N_FEATURES,
    N_VIEW_FEATURES,
    PolicyNet,
    hand_features,
    view_features,
)
from fujian_mahjong.bots.neural import WEIGHTS as WEIGHTS_FILE
from fujian_mahjong.rl.encoding import N_ACTIONS, OBS_HIGH, OBS_SIZE
from fujian_mahjong.rl.vec import VecGames

F32 = npt.NDArray[np.float32]
VALUE_SCALE = 32.0  # the value head predicts points / VALUE_SCALE


# ------------------------------------------------------------------------------- gen
def teacher_factory(kind: str) -> Callable[[str], Bot]:
    if kind == "strong-fast":

        def strong_fast(seed: str) -> Bot:
            from fujian_mahjong.bots.strong import StrongBot

            bot: Bot = StrongBot(seed, max_rollouts=0, deadline_s=None)
            return bot

        return strong_fast
    make_bot(kind)  # an unknown kind fails here, in one line
    return lambda seed: make_bot(kind, seed)


def generate(
    teacher: str,
    hands: int,
    seed: str,
    profile: str = "fuzhou-tcy",
    players: int = 4,
    batch: int = 16,
    log: Callable[[str], None] | None = None,
    player: str | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Teacher self-play: ``hands`` hands over ``batch`` games (game i plays the seeds
    ``f"{seed}/{i}:{j}"``), every decision with a choice recorded (module docstring).
    With ``player`` (a weights file), the network with those weights plays every seat and
    the teacher only labels its decisions (DAgger: the states the network reaches)."""
    make = teacher_factory(teacher)
    net = None
    if player is not None:
        from fujian_mahjong.bots.neural import NeuralBot, PolicyNet

        net = NeuralBot(policy=PolicyNet.load(player))
    batch = max(1, min(batch, hands))
    quota = [hands // batch + (1 if i < hands % batch else 0) for i in range(batch)]
    vec = VecGames(batch, profile, players)
    out = vec.reset([f"{seed}/{i}" for i in range(batch)])

    def bots_for(i: int) -> list[Bot]:
        j = int(vec.hands[i]) - 1
        return [make(f"{seed}/{i}:{j}:{s}") for s in range(players)]

    bots = [bots_for(i) for i in range(batch)]
    done_hands = [0] * batch
    obs: list[npt.NDArray[np.uint8]] = []
    masks: list[npt.NDArray[np.uint8]] = []
    acts: list[int] = []
    seats: list[int] = []
    hand_ids: list[int] = []
    values: list[float] = []
    vfeats: list[npt.NDArray[np.float16]] = []
    pending: list[list[int]] = [[] for _ in range(batch)]  # rows of the hand in play
    t0 = time.process_time()
    while any(d < q for d, q in zip(done_hands, quota, strict=True)):
        actions = np.zeros(batch, dtype=np.int64)
        for i in range(batch):
            if done_hands[i] >= quota[i]:
                actions[i] = int(out.mask[i].argmax())  # past its quota: not recorded
                continue
            s = int(out.seat[i])
            view = vec.view(i)
            d = bots[i][s].act(view)
            a = vec.index_of(i, d.action)
            actions[i] = a
            if int(out.mask[i].sum()) > 1:
                vfeats.append(view_features(view).astype(np.float16))
                if net is not None:
                    actions[i] = vec.index_of(i, net.act(view).action)
                pending[i].append(len(acts))
                obs.append(np.minimum(out.obs[i], 255).astype(np.uint8))
                masks.append(out.mask[i].astype(np.uint8))
                acts.append(a)
                seats.append(s)
                hand_ids.append(sum(quota[:i]) + done_hands[i])
                values.append(0.0)
        out = vec.step(actions)
        for i in np.flatnonzero(out.done).tolist():
            if done_hands[i] >= quota[i]:
                continue
            for r in pending[i]:
                values[r] = float(out.rewards[i, seats[r]])
            pending[i] = []
            done_hands[i] += 1
            if done_hands[i] < quota[i]:
                bots[i] = bots_for(i)
            if log and sum(done_hands) % 500 == 0:
                log(f"gen: {sum(done_hands):,} hands, {len(acts):,} decisions")
    if log:
        log(
            f"gen: {hands:,} hands, {len(acts):,} decisions with a choice, "
            f"{time.process_time() - t0:.1f} s CPU"
        )
    return {
        "obs": np.array(obs, dtype=np.uint8).reshape(-1, OBS_SIZE),
        "mask": np.array(masks, dtype=np.uint8).reshape(-1, N_ACTIONS),
        "action": np.array(acts, dtype=np.int16),
        "seat": np.array(seats, dtype=np.int8),
        "hand": np.array(hand_ids, dtype=np.int32),
        "value": np.array(values, dtype=np.float32),
        "vfeat": np.array(vfeats, dtype=np.float16).reshape(-1, N_VIEW_FEATURES),
        "meta": np.array(
            json.dumps(
                {
                    "teacher": teacher,
                    "hands": hands,
                    "seed": seed,
                    "profile": profile,
                    "players": players,
                    "batch": batch,
                    "player": os.path.basename(player) if player else None,
                },
                sort_keys=True,
            )
        ),
    }


# ------------------------------------------------------------------------------- fit
def init_params(hidden: Sequence[int], rng: np.random.Generator, inputs: int) -> dict[str, F32]:
    p: dict[str, F32] = {}
    sizes = [inputs, *hidden]
    for i in range(len(hidden)):
        p[f"w{i}"] = (
            rng.standard_normal((sizes[i], sizes[i + 1])) * math.sqrt(2 / sizes[i])
        ).astype(np.float32)
        p[f"b{i}"] = np.zeros(sizes[i + 1], dtype=np.float32)
    last = sizes[-1]
    p["wp"] = (rng.standard_normal((last, N_ACTIONS)) * math.sqrt(1 / last)).astype(np.float32)
    p["bp"] = np.zeros(N_ACTIONS, dtype=np.float32)
    p["wv"] = (rng.standard_normal((last, 1)) * math.sqrt(1 / last)).astype(np.float32)
    p["bv"] = np.zeros(1, dtype=np.float32)
    return p


def _scale(features: bool, mask_input: bool, view_feats: bool = False) -> F32:
    """Inputs × scale: the observation by its bounds (OBS_HIGH), the features and the legal
    mask as they are."""
    s = 1.0 / np.maximum(OBS_HIGH, 1.0)
    if features:
        s = np.concatenate([s, np.ones(N_FEATURES)])
    if view_feats:
        s = np.concatenate([s, np.ones(N_VIEW_FEATURES)])
    if mask_input:
        s = np.concatenate([s, np.ones(N_ACTIONS)])
    return s.astype(np.float32)


def loss_and_grads(
    p: dict[str, F32],
    x: F32,
    mask: npt.NDArray[Any],
    act: npt.NDArray[Any],
    val: F32,
    value_weight: float,
    grads: bool = True,
) -> tuple[float, float, float, dict[str, F32]]:
    """(policy cross-entropy, value MSE, accuracy, gradients) on one batch; ``x`` already
    scaled, ``val`` in value units."""
    n_hidden = sum(1 for k in p if k.startswith("w") and k[1:].isdigit())
    hs = [x]
    h = x
    for i in range(n_hidden):
        h = np.maximum(h @ p[f"w{i}"] + p[f"b{i}"], 0.0)
        hs.append(h)
    z = h @ p["wp"] + p["bp"]
    z = np.where(mask > 0, z, np.float32(-1e9))
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    prob = e / e.sum(axis=1, keepdims=True)
    b = x.shape[0]
    rows = np.arange(b)
    ce = float(-np.log(prob[rows, act] + 1e-12).mean())
    acc = float((z.argmax(axis=1) == act).mean())
    v = (h @ p["wv"] + p["bv"])[:, 0]
    dv_raw = v - val
    mse = float((dv_raw**2).mean())
    g: dict[str, F32] = {}
    if not grads:
        return ce, mse, acc, g
    dz = prob
    dz[rows, act] -= 1.0
    dz /= b
    dv = (2.0 * value_weight / b) * dv_raw[:, None].astype(np.float32)
    g["wp"] = h.T @ dz
    g["bp"] = dz.sum(axis=0)
    g["wv"] = h.T @ dv
    g["bv"] = dv.sum(axis=0)
    dh = dz @ p["wp"].T + dv @ p["wv"].T
    for i in reversed(range(n_hidden)):
        dh = dh * (hs[i + 1] > 0)
        g[f"w{i}"] = hs[i].T @ dh
        g[f"b{i}"] = dh.sum(axis=0)
        if i:
            dh = dh @ p[f"w{i}"].T
    return ce, mse, acc, g


def fit(
    data: dict[str, npt.NDArray[Any]],
    seed: int = 0,
    hidden: Sequence[int] = (256, 256),
    epochs: int = 8,
    batch: int = 256,
    lr: float = 1e-3,
    value_weight: float = 0.25,
    val_share: float = 0.1,
    features: bool = True,
    mask_input: bool = True,
    log: Callable[[str], None] | None = None,
    view_feats: bool = True,
) -> tuple[dict[str, F32], dict[str, Any]]:
    """Adam on masked cross-entropy + value_weight · value MSE; returns (params, meta).
    ``view_feats``: also the view features that ``gen`` stored (``vfeat``), where present."""
    view_feats = view_feats and "vfeat" in data
    rng = np.random.default_rng(seed)
    hands = np.unique(data["hand"])
    n_val = round(len(hands) * val_share) if len(hands) > 1 else 0
    val_hands = set(rng.permutation(hands)[:n_val].tolist())
    is_val = np.array([h in val_hands for h in data["hand"].tolist()], dtype=bool)
    tr = np.flatnonzero(~is_val)
    va = np.flatnonzero(is_val)
    scale = _scale(features, mask_input, view_feats)
    x_all = data["obs"]
    t_feat = time.process_time()
    # the hand features of bots/neural.py, computed once (float16 halves the memory)
    feats = (
        np.stack([hand_features(row) for row in x_all]).astype(np.float16)
        if features and len(x_all)
        else np.zeros((len(x_all), 0), dtype=np.float16)
    )
    if log and features:
        log(
            f"fit: hand features of {len(x_all):,} decisions, {time.process_time() - t_feat:.0f} s CPU"
        )

    def inputs(j: npt.NDArray[np.intp]) -> F32:
        x = x_all[j].astype(np.float32)
        if features:
            x = np.concatenate([x, feats[j].astype(np.float32)], axis=1)
        if view_feats:
            x = np.concatenate([x, data["vfeat"][j].astype(np.float32)], axis=1)
        if mask_input:
            x = np.concatenate([x, mask_all[j].astype(np.float32)], axis=1)
        return x * scale

    mask_all = data["mask"]
    act_all = data["action"].astype(np.int64)
    val_all = (data["value"] / VALUE_SCALE).astype(np.float32)
    p = init_params(hidden, rng, len(scale))
    m = {k: np.zeros_like(v) for k, v in p.items()}
    s2 = {k: np.zeros_like(v) for k, v in p.items()}
    b1, b2, eps = 0.9, 0.999, 1e-8
    t = 0
    curves: list[dict[str, float]] = []
    t0 = time.process_time()

    def evaluate(idx: npt.NDArray[np.intp]) -> tuple[float, float, float]:
        if not len(idx):
            return float("nan"), float("nan"), float("nan")
        tot = np.zeros(3)
        for a in range(0, len(idx), 4096):
            j = idx[a : a + 4096]
            ce, mse, acc, _ = loss_and_grads(
                p, inputs(j), mask_all[j], act_all[j], val_all[j], value_weight, False
            )
            tot += np.array([ce, mse, acc]) * len(j)
        r = tot / len(idx)
        return float(r[0]), float(r[1]), float(r[2])

    steps = epochs * max(1, math.ceil(len(tr) / batch))
    best: tuple[float, int, dict[str, F32]] | None = None  # (val_ce, epoch, params)
    for ep in range(epochs):
        order = rng.permutation(tr)
        run = np.zeros(3)
        nb = 0
        for a in range(0, len(order), batch):
            j = np.sort(order[a : a + batch])
            ce, mse, acc, g = loss_and_grads(
                p, inputs(j), mask_all[j], act_all[j], val_all[j], value_weight
            )
            t += 1
            step_lr = lr * (1.0 - 0.9 * (t - 1) / steps)  # linear decay to a tenth
            for k in p:
                m[k] = b1 * m[k] + (1 - b1) * g[k]
                s2[k] = b2 * s2[k] + (1 - b2) * g[k] * g[k]
                mh = m[k] / (1 - b1**t)
                vh = s2[k] / (1 - b2**t)
                p[k] -= (step_lr * mh / (np.sqrt(vh) + eps)).astype(np.float32)
            run += (ce, mse, acc)
            nb += 1
        vce, vmse, vacc = evaluate(va)
        row = {
            "epoch": ep + 1,
            "train_ce": round(float(run[0] / max(nb, 1)), 4),
            "train_acc": round(float(run[2] / max(nb, 1)), 4),
            "val_ce": round(vce, 4),
            "val_acc": round(vacc, 4),
            "val_value_rmse_points": round(math.sqrt(vmse) * VALUE_SCALE, 2)
            if vmse == vmse
            else None,
        }
        curves.append(row)  # type: ignore[arg-type]
        if log:
            log(f"fit: {json.dumps(row)} ({time.process_time() - t0:.0f} s CPU)")
        # keep the epoch with the lowest validation loss (the last one without validation)
        if not len(va) or best is None or vce < best[0]:
            best = (vce, ep + 1, {k: v.copy() for k, v in p.items()})
    if best is not None:
        p = best[2]
    src = json.loads(str(data["meta"])) if "meta" in data else {}
    meta = {
        "architecture": f"MLP {len(scale)}-"
        + "-".join(map(str, hidden))
        + f" ReLU; heads {N_ACTIONS} logits + 1 value",
        "hidden": list(hidden),
        "features": features,
        "view_features": view_feats,
        "mask_input": mask_input,
        "data": src,
        "decisions": len(x_all),
        "train_decisions": len(tr),
        "val_decisions": len(va),
        "seed": seed,
        "epochs": epochs,
        "best_epoch": best[1] if best is not None else 0,
        "batch": batch,
        "lr": lr,
        "value_weight": value_weight,
        "value_scale": VALUE_SCALE,
        "curves": curves,
        "cpu_seconds": round(time.process_time() - t0, 1),
    }
    p["scale"] = scale
    return p, meta


def save_weights(p: dict[str, F32], meta: dict[str, Any], path: str) -> None:
    from fujian_mahjong.bots.neural import PolicyNet

    PolicyNet(dict(p), meta).save(path)


def merge(paths: Sequence[str]) -> PolicyNet:
    """Networks of one encoding as one wider network whose logits and value are their means
    (an ensemble in one file, played by the same numpy code): the first hidden layers side by
    side (they read the same inputs), the later ones block-diagonal, the heads stacked and
    divided by their number."""
    nets = [PolicyNet.load(p) for p in paths]
    first = nets[0]
    for path, n in zip(paths, nets, strict=True):
        same = (n.features, n.view_features, n.mask_input) == (
            first.features,
            first.view_features,
            first.mask_input,
        )
        if not same or len(n.layers) != len(first.layers) or n.has_q:
            raise ValueError(f"{path}: not a network of the first one's encoding and depth")
        if not np.array_equal(n.scale, first.scale):
            raise ValueError(f"{path}: its input scale differs from the first network's")
    k = len(nets)
    arrays: dict[str, npt.NDArray[Any]] = {"scale": first.scale}
    for i in range(len(first.layers)):
        ws = [n.layers[i][0] for n in nets]
        if i == 0:
            w = np.concatenate(ws, axis=1)
        else:
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), np.float32)
            r = c = 0
            for x in ws:
                w[r : r + x.shape[0], c : c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
        arrays[f"w{i}"] = w
        arrays[f"b{i}"] = np.concatenate([n.layers[i][1] for n in nets])
    arrays["wp"] = np.concatenate([n.wp for n in nets]) / k
    arrays["bp"] = np.mean([n.bp for n in nets], axis=0)
    arrays["wv"] = np.concatenate([n.wv * n.value_scale for n in nets]) / k
    arrays["bv"] = np.mean([n.bv * n.value_scale for n in nets], axis=0)
    widths = [int(arrays[f"w{i}"].shape[1]) for i in range(len(first.layers))]
    meta = {
        "architecture": f"MLP {first.scale.shape[0]}-{'-'.join(map(str, widths))} ReLU, "
        f"the mean of {k} networks; heads 179 logits + 1 value",
        "features": first.features,
        "view_features": first.view_features,
        "mask_input": first.mask_input,
        "value_scale": 1.0,
        "ensemble": [n.meta for n in nets],
    }
    return PolicyNet({k_: v.astype(np.float32) for k_, v in arrays.items()}, meta)


# ------------------------------------------------------------------------ rollouts
def rollout_data(
    hands: int,
    seed: str,
    profile: str = "fuzhou-tcy",
    players: int = 4,
    top: int = 3,
    weights: str | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, npt.NDArray[Any]]:
    """Rollout-labelled decisions (docs/bots.md, "Learning from rollouts"): the teacher
    (``strong-fast``) plays ``hands`` hands at every seat (hand h: seed ``f"{seed}/{h}"``);
    at each decision with a choice, the network's ``top`` legal actions by policy (the
    teacher's own action in the last place if it is not among them) are each played out
    from the true state by the teacher at every seat, and the seat's points at the end of
    the hand are recorded per candidate. The candidates share the wall and the hands
    (common random numbers), so their difference is the candidate's alone. The hidden
    state is used only to play out, never as an input (R12): a hand's true state is one
    sample of what the seat cannot see."""
    from fujian_mahjong.bots.base import play_out
    from fujian_mahjong.bots.neural import NeuralBot, PolicyNet, load_policy
    from fujian_mahjong.bots.strong import _clone
    from fujian_mahjong.engine import Game

    make = teacher_factory("strong-fast")
    net = NeuralBot(policy=PolicyNet.load(weights) if weights else load_policy())
    rows: dict[str, list[Any]] = {
        k: [] for k in ("obs", "mask", "vfeat", "cand", "ret", "teacher", "seat", "hand", "value")
    }
    t0 = time.process_time()
    for h in range(hands):
        g = Game.new(profile, seed=f"{seed}/{h}", players=players, dealer=h % players, streak=0)
        bots = [make(f"{seed}/{h}:{s}") for s in range(players)]
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = bots[s].act(v)
            if len(v.legal) > 1:
                obs, lm = net.observe(v)
                idx = np.fromiter(lm, dtype=np.int64, count=len(lm))
                mask = np.zeros((1, N_ACTIONS), dtype=np.float32)
                mask[0, idx] = 1.0
                vf = view_features(v)
                logits, _ = net.policy.forward(obs[None, :], mask, vf[None, :])
                z = logits[0, idx]
                cand = [int(idx[j]) for j in np.lexsort((idx, -z))[:top]]
                ta = next(i for i, act in lm.items() if act == d.action)
                if ta not in cand:
                    cand[-1] = ta
                ret = []
                for c in cand:
                    w = _clone(g)
                    w.apply(s, lm[c])
                    if not w.is_over():
                        play_out(w, [make(f"{seed}/{h}:r{q}") for q in range(players)])
                    sc = w.score()
                    ret.append(sc.payments[s] if sc is not None else 0)
                rows["obs"].append(np.minimum(obs, 255).astype(np.uint8))
                rows["mask"].append(mask[0].astype(np.uint8))
                rows["vfeat"].append(vf.astype(np.float16))
                rows["cand"].append(cand + [-1] * (top - len(cand)))
                rows["ret"].append(ret + [0] * (top - len(ret)))
                rows["teacher"].append(ta)
                rows["seat"].append(s)
                rows["hand"].append(h)
                rows["value"].append(0.0)
            g.apply(s, d.action)
        sc = g.score()
        for r in range(len(rows["value"]) - 1, -1, -1):  # the hand's final points, per seat
            if rows["hand"][r] != h:
                break
            rows["value"][r] = float(sc.payments[rows["seat"][r]]) if sc is not None else 0.0
        if log and (h + 1) % 100 == 0:
            log(f"roll: {h + 1:,} hands, {len(rows['obs']):,} decisions")
    if log:
        log(
            f"roll: {hands:,} hands, {len(rows['obs']):,} decisions, "
            f"{time.process_time() - t0:.1f} s CPU"
        )
    n = len(rows["obs"])
    return {
        "obs": np.array(rows["obs"], dtype=np.uint8).reshape(n, OBS_SIZE),
        "mask": np.array(rows["mask"], dtype=np.uint8).reshape(n, N_ACTIONS),
        "vfeat": np.array(rows["vfeat"], dtype=np.float16).reshape(n, N_VIEW_FEATURES),
        "cand": np.array(rows["cand"], dtype=np.int16).reshape(n, top),
        "ret": np.array(rows["ret"], dtype=np.float32).reshape(n, top),
        "teacher": np.array(rows["teacher"], dtype=np.int16),
        "seat": np.array(rows["seat"], dtype=np.int8),
        "hand": np.array(rows["hand"], dtype=np.int32),
        "value": np.array(rows["value"], dtype=np.float32),
        "meta": np.array(
            json.dumps(
                {
                    "rollouts": "strong-fast",
                    "hands": hands,
                    "seed": seed,
                    "profile": profile,
                    "players": players,
                    "top": top,
                    "weights": os.path.basename(weights) if weights else "shipped",
                },
                sort_keys=True,
            )
        ),
    }


def fit_q(
    data: dict[str, npt.NDArray[Any]],
    weights: str | None = None,
    seed: int = 0,
    hidden: int = 256,
    epochs: int = 4,
    lr: float = 1e-3,
    l2: float = 1e-4,
    top: int = 3,
    margin: float = 2.0,
    val_share: float = 0.1,
    log: Callable[[str], None] | None = None,
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """The advantage head on top of a policy's last hidden layer (frozen): per row, each
    candidate's points minus the candidates' mean (common random numbers) is the target of
    its advantage minus their mean advantage (squared error, Adam). Returns the policy's
    arrays with the head added (``wq0, bq0, wq, bq``) and its meta with the head's."""
    from fujian_mahjong.bots.neural import PolicyNet, load_policy

    base = PolicyNet.load(weights) if weights else load_policy()
    rng = np.random.default_rng(seed)
    cand = data["cand"].astype(np.int64)
    valid = cand >= 0
    k = valid.sum(axis=1)
    ret = data["ret"].astype(np.float32)
    cent = np.where(valid, ret - ((ret * valid).sum(axis=1) / np.maximum(k, 1))[:, None], 0.0)
    cent = cent.astype(np.float32)
    t0 = time.process_time()
    hs = []
    for a in range(0, len(cand), 4096):
        sl = slice(a, a + 4096)
        hs.append(base.hidden(data["obs"][sl], data["mask"][sl], data["vfeat"][sl]))
    hid = np.concatenate(hs) if hs else np.zeros((0, base.wp.shape[0]), dtype=np.float32)
    hands = np.unique(data["hand"])
    n_val = round(len(hands) * val_share) if len(hands) > 1 else 0
    val_hands = set(rng.permutation(hands)[:n_val].tolist())
    is_val = np.array([x in val_hands for x in data["hand"].tolist()], dtype=bool)
    tr = np.flatnonzero(~is_val & (k > 1))
    va = np.flatnonzero(is_val & (k > 1))
    width = hid.shape[1]
    p: dict[str, F32] = {
        "wq0": (rng.standard_normal((width, hidden)) * math.sqrt(2 / width)).astype(np.float32),
        "bq0": np.zeros(hidden, dtype=np.float32),
        "wq": np.zeros((hidden, N_ACTIONS), dtype=np.float32),
        "bq": np.zeros(N_ACTIONS, dtype=np.float32),
    }

    def loss_grads(j: npt.NDArray[np.intp], grads: bool) -> tuple[float, dict[str, F32]]:
        x = hid[j]
        a1 = np.maximum(x @ p["wq0"] + p["bq0"], 0.0)
        q = a1 @ p["wq"] + p["bq"]
        c = np.where(valid[j], cand[j], 0)
        r = np.arange(len(j))[:, None]
        qc = np.where(valid[j], q[r, c], 0.0)
        e = np.where(valid[j], qc - (qc.sum(axis=1) / k[j])[:, None] - cent[j], 0.0)
        loss = float((e**2).sum())
        if not grads:
            return loss, {}
        de = 2.0 * e / len(j)
        dqc = np.where(valid[j], de - (de.sum(axis=1) / k[j])[:, None], 0.0).astype(np.float32)
        dq = np.zeros_like(q)
        np.add.at(dq, (np.repeat(np.arange(len(j)), c.shape[1]), c.ravel()), dqc.ravel())
        da = (dq @ p["wq"].T) * (a1 > 0)
        g = {
            "wq": a1.T @ dq + l2 * p["wq"],
            "bq": dq.sum(axis=0),
            "wq0": x.T @ da + l2 * p["wq0"],
            "bq0": da.sum(axis=0),
        }
        return loss, g

    def val_mse() -> float:
        if not len(va):
            return float("nan")
        tot = sum(loss_grads(va[a : a + 4096], False)[0] for a in range(0, len(va), 4096))
        return float(tot / valid[va].sum())

    m = {q: np.zeros_like(v) for q, v in p.items()}
    s2 = {q: np.zeros_like(v) for q, v in p.items()}
    t = 0

    def row(ep: int) -> dict[str, Any]:
        v = val_mse()
        return {"epoch": ep, "val_mse": round(v, 2) if v == v else None}

    curves = [row(0)]
    for ep in range(epochs):
        order = rng.permutation(tr)
        for a in range(0, len(order), 256):
            _, g = loss_grads(np.sort(order[a : a + 256]), True)
            t += 1
            for q in p:
                m[q] = 0.9 * m[q] + 0.1 * g[q]
                s2[q] = 0.999 * s2[q] + 0.001 * g[q] * g[q]
                step = lr * (m[q] / (1 - 0.9**t)) / (np.sqrt(s2[q] / (1 - 0.999**t)) + 1e-8)
                p[q] -= step.astype(np.float32)
        curves.append(row(ep + 1))
        if log:
            log(f"qfit: {json.dumps(curves[-1])} ({time.process_time() - t0:.0f} s CPU)")
    arrays: dict[str, npt.NDArray[Any]] = dict(base.arrays())
    arrays.update(p)
    meta = dict(base.meta)
    meta.update(
        q_top=top,
        q_margin=margin,
        q_head={
            "architecture": f"{width}-{hidden} ReLU-{N_ACTIONS} over the frozen last hidden layer",
            "data": json.loads(str(data["meta"])) if "meta" in data else None,
            "decisions": len(cand),
            "train_decisions": len(tr),
            "val_decisions": len(va),
            "seed": seed,
            "epochs": epochs,
            "lr": lr,
            "l2": l2,
            "curves": curves,
            "cpu_seconds": round(time.process_time() - t0, 1),
        },
    )
    return arrays, meta


# ------------------------------------------------------------------------------ eval
def evaluate(
    weights: str | None,
    opponent: str,
    deals: int,
    seed: str = "eval",
    profile: str = "fuzhou-tcy",
    workers: int = 1,
) -> dict[str, Any]:
    """``fjmj simulate --duplicate`` 1 v 3: the neural bot (these weights) against three
    ``opponent``; returns the summary's JSON."""
    from fujian_mahjong.bots.neural import WEIGHTS_ENV
    from fujian_mahjong.sim import simulate

    old = os.environ.get(WEIGHTS_ENV)
    if weights is not None:
        os.environ[WEIGHTS_ENV] = os.path.abspath(weights)  # workers inherit it
    try:
        sm = simulate(
            profile,
            deals,
            seed,
            ("neural", opponent, opponent, opponent),
            workers=workers,
            duplicate=True,
        )
    finally:
        if weights is not None:
            if old is None:
                os.environ.pop(WEIGHTS_ENV, None)
            else:
                os.environ[WEIGHTS_ENV] = old
    return sm.to_json()


def _stats_deal(args: tuple[str, str, int, str, str | None]) -> list[dict[str, Any]]:
    """Deal k played once per seating of 1 v 3 (the neural bot at each seat in turn), as
    ``fjmj simulate --duplicate`` plays it (the same hand seed, bots and seeds, seat 0
    deals); per hand the neural seat's figures."""
    from fujian_mahjong.bots.base import play_out
    from fujian_mahjong.bots.neural import NeuralBot, load_policy
    from fujian_mahjong.engine import Game
    from fujian_mahjong.engine.match import hand_seed as derive_seed
    from fujian_mahjong.sim.simulate import DEALER, duplicate_seatings, placements2

    profile, seed, k, opponent, weights = args
    policy = load_policy(weights)  # None: the shipped weights (or $FJMJ_NEURAL_WEIGHTS)
    hand_seed = derive_seed(seed, k)
    rows = []
    for rot in duplicate_seatings(("neural", opponent, opponent, opponent)):
        me = rot.index("neural")
        bots = [
            NeuralBot(f"{hand_seed}:{s}", policy)
            if kind == "neural"
            else teacher_factory(kind)(f"{hand_seed}:{s}")
            for s, kind in enumerate(rot)
        ]
        g = Game.new(profile, seed=hand_seed, players=len(rot), dealer=DEALER)
        try:
            play_out(g, bots, 5000)
        except StopIteration as e:
            # Pool.map would take a StopIteration for the end of its chunk and drop deals
            raise RuntimeError(f"deal {k} of {seed!r} ({profile}): {e!r}") from e
        sc = g.score()
        assert sc is not None
        pay = list(sc.payments)
        win = g.win or {}
        claims = sum(1 for e in g.events if e["type"] == "claim" and e["seat"] == me)
        rows.append(
            {
                "deal": k,
                "dealer": me == DEALER,
                "points": pay[me],
                "opp_points": (sum(pay) - pay[me]) / (len(pay) - 1),
                "placement": placements2(pay)[me] / 2,
                "won": win.get("winner") == me,
                "self_draw": win.get("winner") == me and win.get("discarder") is None,
                "dealt_in": win.get("discarder") == me,
                "called": claims > 0,
                "specials": list(sc.specials) if win.get("winner") == me else [],
            }
        )
    return rows


def _mean_ci(per_deal: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% interval over independent deals (clustered)."""
    n = len(per_deal)
    m = sum(per_deal) / n
    if n < 2:
        return m, float("nan")
    var = sum((x - m) ** 2 for x in per_deal) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def match_stats(
    weights: str | None,
    opponent: str,
    deals: int,
    seed: str = "eval",
    profile: str = "fuzhou-tcy",
    workers: int = 1,
    start: int = 0,
    baseline: str | None = None,
) -> dict[str, Any]:
    """Mortal-style figures of the neural bot, 1 v 3 duplicate against three ``opponent``
    (the deals and seatings of ``fjmj simulate --duplicate``, so the same points): points a
    hand with a 95% CI clustered by deal, placement, win / deal-in / call rates, average win
    value, dealer and non-dealer points, specials made. ``opponent`` may also be
    ``strong-fast`` (the 高手's rules without its search, as in ``gen``). With ``baseline``
    (other weights, ``"shipped"`` for the package's), those play the same deals and seatings
    too, and ``vs_baseline`` is the paired difference a hand with its 95% CI (clustered by
    deal): the opponents are deterministic, so only the deals where the two networks
    decide differently add to its variance."""
    w = os.path.abspath(weights) if weights is not None else None
    jobs = [(profile, seed, k, opponent, w) for k in range(start, start + deals)]
    if baseline is not None:
        b = str(WEIGHTS_FILE) if baseline == "shipped" else os.path.abspath(baseline)
        jobs += [(profile, seed, k, opponent, b) for k in range(start, start + deals)]
    t0 = time.perf_counter()
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("spawn").Pool(workers) as pool:
            out = pool.map(_stats_deal, jobs, chunksize=max(1, len(jobs) // (workers * 8)))
    else:
        out = [_stats_deal(j) for j in jobs]
    if len(out) != len(jobs) or any(not rows for rows in out):
        raise RuntimeError(f"{len(jobs)} deals played, {len(out)} results: a worker lost deals")
    paired: dict[str, Any] = {}
    if baseline is not None:
        out, base = out[:deals], out[deals:]
        diffs = [
            sum(h["points"] for h in a) / len(a) - sum(h["points"] for h in c) / len(c)
            for a, c in zip(out, base, strict=True)
        ]
        dm, dci = _mean_ci(diffs)
        paired = {
            "baseline": baseline,
            "vs_baseline": round(dm, 3),
            "vs_baseline_ci95": [round(dm - dci, 3), round(dm + dci, 3)],
            "deals_differing": sum(1 for x in diffs if x),
        }
    hands = [h for d in out for h in d]
    n = len(hands)

    def rate(key: str) -> float:
        return sum(1 for h in hands if h[key]) / n

    by_deal: dict[int, list[dict[str, Any]]] = {}
    for h in hands:
        by_deal.setdefault(h["deal"], []).append(h)
    pts, pts_ci = _mean_ci([sum(h["points"] for h in d) / len(d) for d in by_deal.values()])
    diff, diff_ci = _mean_ci(
        [sum(h["points"] - h["opp_points"] for h in d) / len(d) for d in by_deal.values()]
    )
    wins = [h["points"] for h in hands if h["won"]]
    specials: dict[str, int] = {}
    for h in hands:
        for sp in h["specials"]:
            specials[sp] = specials.get(sp, 0) + 1

    def split(dealer: bool) -> float:
        xs = [h["points"] for h in hands if h["dealer"] == dealer]
        return sum(xs) / len(xs) if xs else float("nan")

    return {
        "opponent": opponent,
        "profile": profile,
        "seed": seed,
        "deals": deals,
        "start": start,
        "hands": n,
        "points_per_hand": round(pts, 3),
        "ci95": [round(pts - pts_ci, 3), round(pts + pts_ci, 3)],
        "opp_points_per_hand": round(sum(h["opp_points"] for h in hands) / n, 3),
        "vs_field": round(diff, 3),
        "vs_field_ci95": [round(diff - diff_ci, 3), round(diff + diff_ci, 3)],
        "placement": round(sum(h["placement"] for h in hands) / n, 3),
        "win_rate": round(rate("won"), 4),
        "self_draw_rate": round(rate("self_draw"), 4),
        "deal_in_rate": round(rate("dealt_in"), 4),
        "call_rate": round(rate("called"), 4),
        "avg_win_points": round(sum(wins) / len(wins), 2) if wins else None,
        "dealer_points": round(split(True), 3),
        "non_dealer_points": round(split(False), 3),
        "specials": dict(sorted(specials.items())),
        **paired,
        "seconds": round(time.perf_counter() - t0, 1),
    }


# ------------------------------------------------------------------------------- CLI
def _load_parts(
    paths: Sequence[str], keys: list[str], optional: Sequence[str] = ()
) -> dict[str, npt.NDArray[Any]]:
    """The data files concatenated in the given order: ``keys`` (and each of ``optional``
    that every file has), the hands renumbered so that they stay apart, and the files'
    ``meta`` as a list (None for a file without one)."""
    parts = []
    for path in paths:
        with np.load(path, allow_pickle=False) as z:
            parts.append({k: z[k] for k in z.files})
    keys = keys + [k for k in optional if all(k in pt for pt in parts)]
    data = {k: np.concatenate([pt[k] for pt in parts]) for k in keys}
    offs = np.cumsum([0] + [int(pt["hand"].max()) + 1 if len(pt["hand"]) else 0 for pt in parts])
    data["hand"] = np.concatenate([pt["hand"] + o for pt, o in zip(parts, offs, strict=False)])
    data["meta"] = np.array(
        json.dumps([json.loads(str(pt["meta"])) if "meta" in pt else None for pt in parts])
    )
    return data


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m fujian_mahjong.rl.train", description=__doc__.split("\n\n")[0]
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen", help="teacher self-play -> imitation data (.npz)")
    g.add_argument("--teacher", default="strong-fast")
    g.add_argument("--hands", type=int, default=4000)
    g.add_argument("--seed", default="gen0")
    g.add_argument("--profile", default="fuzhou-tcy")
    g.add_argument("--players", type=int, default=4)
    g.add_argument("--batch", type=int, default=16)
    g.add_argument(
        "--player",
        default=None,
        help="weights: the network plays every seat and the teacher only labels (DAgger)",
    )
    g.add_argument("--out", required=True)
    f = sub.add_parser("fit", help="train the network on imitation data -> weights (.npz)")
    f.add_argument("--data", required=True, nargs="+")
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--hidden", default="256,256")
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--batch", type=int, default=256)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--value-weight", type=float, default=0.25)
    f.add_argument(
        "--no-features",
        dest="features",
        action="store_false",
        help="the observation alone, without the hand features of bots/neural.py",
    )
    f.add_argument(
        "--no-mask-input",
        dest="mask_input",
        action="store_false",
        help="do not feed the legal mask to the network (it only masks the logits)",
    )
    f.add_argument(
        "--no-view-features",
        dest="view_feats",
        action="store_false",
        help="without the view features of bots/neural.py (the teacher's danger and values)",
    )
    f.add_argument("--out", required=True)
    r = sub.add_parser("roll", help="rollout-labelled decisions (the teacher plays each out)")
    r.add_argument("--hands", type=int, default=1000)
    r.add_argument("--seed", default="roll0")
    r.add_argument("--profile", default="fuzhou-tcy")
    r.add_argument("--players", type=int, default=4)
    r.add_argument("--top", type=int, default=3, help="candidates per decision")
    r.add_argument("--weights", default=None, help="the policy ranking the candidates")
    r.add_argument("--out", required=True)
    q = sub.add_parser("qfit", help="fit the advantage head on rollout data -> weights (.npz)")
    q.add_argument("--data", required=True, nargs="+")
    q.add_argument("--weights", default=None, help="the policy to extend (default: shipped)")
    q.add_argument("--seed", type=int, default=0)
    q.add_argument("--hidden", type=int, default=256)
    q.add_argument("--epochs", type=int, default=4)
    q.add_argument("--lr", type=float, default=1e-3)
    q.add_argument("--l2", type=float, default=1e-4)
    q.add_argument("--top", type=int, default=3, help="candidates the bot weighs when it plays")
    q.add_argument(
        "--margin", type=float, default=2.0, help="points the head must gain to move the choice"
    )
    q.add_argument("--out", required=True)
    m = sub.add_parser("merge", help="networks -> one network playing the mean of their logits")
    m.add_argument("--weights", required=True, nargs="+")
    m.add_argument("--out", required=True)
    e = sub.add_parser("eval", help="duplicate 1 v 3 against three bots of a kind")
    e.add_argument("--weights", default=None, help="default: the shipped weights")
    e.add_argument("--opponent", default="heuristic")
    e.add_argument("--deals", type=int, default=500)
    e.add_argument("--seed", default="eval")
    e.add_argument("--profile", default="fuzhou-tcy")
    e.add_argument("--workers", type=int, default=1)
    e.add_argument("--json", action="store_true")
    e.add_argument(
        "--stats",
        action="store_true",
        help="Mortal-style figures (placement, call rate, win value, dealer split, specials)",
    )
    e.add_argument("--start", type=int, default=0, help="with --stats: the first deal")
    e.add_argument(
        "--baseline",
        default=None,
        help="with --stats: weights ('shipped': the package's) played on the same deals; "
        "prints the paired difference",
    )
    a = ap.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    if a.cmd == "gen":
        d = generate(a.teacher, a.hands, a.seed, a.profile, a.players, a.batch, log, a.player)
        arrays: dict[str, Any] = dict(d)
        np.savez_compressed(a.out, **arrays)
        print(f"wrote {a.out}: {len(d['action']):,} decisions from {a.hands:,} hands")
    elif a.cmd == "fit":
        keys = ["obs", "mask", "action", "seat", "value"]
        data = _load_parts(a.data, keys, optional=["vfeat"])
        hidden = tuple(int(h) for h in a.hidden.split(",") if h)
        p, meta = fit(
            data,
            a.seed,
            hidden,
            a.epochs,
            a.batch,
            a.lr,
            a.value_weight,
            features=a.features,
            mask_input=a.mask_input,
            log=log,
            view_feats=a.view_feats,
        )
        save_weights(p, meta, a.out)
        print(
            f"wrote {a.out}: {os.path.getsize(a.out):,} bytes; "
            f"validation accuracy {meta['curves'][-1]['val_acc']}"
        )
    elif a.cmd == "roll":
        d = rollout_data(a.hands, a.seed, a.profile, a.players, a.top, a.weights, log)
        rolled: dict[str, Any] = dict(d)
        np.savez_compressed(a.out, **rolled)
        print(f"wrote {a.out}: {len(d['obs']):,} decisions from {a.hands:,} hands")
    elif a.cmd == "qfit":
        qd = _load_parts(a.data, ["obs", "mask", "vfeat", "cand", "ret"])
        arrays, meta = fit_q(
            qd, a.weights, a.seed, a.hidden, a.epochs, a.lr, a.l2, a.top, a.margin, log=log
        )
        from fujian_mahjong.bots.neural import PolicyNet

        PolicyNet(arrays, meta).save(a.out)
        print(f"wrote {a.out}: {os.path.getsize(a.out):,} bytes")
    elif a.cmd == "merge":
        try:
            merged = merge(a.weights)
        except (OSError, ValueError) as ex:
            print(f"merge: {ex}", file=sys.stderr)
            return 2
        merged.save(a.out)
        print(f"wrote {a.out}: {os.path.getsize(a.out):,} bytes, {merged.parameters:,} parameters")
    elif a.stats:
        st = match_stats(
            a.weights, a.opponent, a.deals, a.seed, a.profile, a.workers, a.start, a.baseline
        )
        print(json.dumps(st))
    else:
        js = evaluate(a.weights, a.opponent, a.deals, a.seed, a.profile, a.workers)
        if a.json:
            print(json.dumps(js, indent=1))
        else:
            k = js["by_kind"]["neural"]
            print(
                f"neural v 3 {a.opponent} ({a.profile}, {js['deals']:,} deals, {js['hands']:,} hands): "
                f"{k['points_per_hand']:+.2f} points/hand, 95% CI [{k['ci95_low']:+.2f}, {k['ci95_high']:+.2f}], "
                f"win {k['win_rate']:.1%}, deal-in {k['deal_ins_per_hand']:.1%}, placement {k['placement']:.3f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
