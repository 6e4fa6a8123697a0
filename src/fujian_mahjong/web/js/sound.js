// Sounds of the table, generated with the Web Audio API (no files): a tile click, a claim
// call, a win, the last seconds of a countdown, the claim prompt. Muted or not is remembered
// in localStorage. The audio context starts only after the player's first tap or key (the
// browser's autoplay rule), so nothing is played or logged before.

let ctx = null;
let unlocked = false;
let muted = (() => {
  try {
    return localStorage.getItem("fjmj.mute") === "1";
  } catch (_e) {
    return false;
  }
})();

function unlock() {
  unlocked = true;
}
if (globalThis.addEventListener) {
  addEventListener("pointerdown", unlock, { capture: true, once: true });
  addEventListener("keydown", unlock, { capture: true, once: true });
}

export function isMuted() {
  return muted;
}

export function setMuted(m) {
  muted = Boolean(m);
  try {
    localStorage.setItem("fjmj.mute", muted ? "1" : "0");
  } catch (_e) {
    /* storage unavailable */
  }
}

// each sound: [frequency Hz, duration s, wave, start offset s, gain]
const SOUNDS = {
  tile: [[1900, 0.04, "square", 0, 0.05], [900, 0.05, "triangle", 0.01, 0.08]],
  claim: [[660, 0.12, "sawtooth", 0, 0.06], [880, 0.16, "sawtooth", 0.1, 0.06]],
  win: [[523, 0.18, "triangle", 0, 0.12], [659, 0.18, "triangle", 0.15, 0.12], [784, 0.3, "triangle", 0.3, 0.12], [1047, 0.45, "triangle", 0.45, 0.1]],
  tick: [[1200, 0.05, "sine", 0, 0.08]],
  prompt: [[740, 0.1, "sine", 0, 0.09], [988, 0.12, "sine", 0.11, 0.09]],
};

export function play(name) {
  if (muted || !unlocked || !SOUNDS[name]) return;
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return;
  try {
    if (!ctx) ctx = new AC();
    if (ctx.state === "suspended") ctx.resume();
    const t0 = ctx.currentTime;
    for (const [f, d, wave, at, g] of SOUNDS[name]) {
      const o = ctx.createOscillator();
      const gain = ctx.createGain();
      o.type = wave;
      o.frequency.value = f;
      gain.gain.setValueAtTime(g, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + d);
      o.connect(gain).connect(ctx.destination);
      o.start(t0 + at);
      o.stop(t0 + at + d + 0.02);
    }
  } catch (_e) {
    /* no audio: play silently */
  }
}
