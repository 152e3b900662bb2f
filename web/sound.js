// The page's sounds, made with WebAudio (no sound files): a move, a jump or
// capture, a Salta call, low time and the game's end. The mute switch in
// the top bar is remembered in localStorage (`monte.sound`). Each sound
// played is also announced as a `monte-sound` event on window (its
// `detail` the sound's name), for whatever wants to know what sounded.

const KEY = 'monte.sound';

/** Each sound: its notes as [frequency in Hz, start in s, length in s], and the wave. */
const SOUNDS = {
  move: { wave: 'triangle', gain: 0.22, notes: [[520, 0, 0.07]] },
  capture: { wave: 'square', gain: 0.09, notes: [[392, 0, 0.07], [262, 0.07, 0.12]] },
  call: { wave: 'sawtooth', gain: 0.08, notes: [[660, 0, 0.09], [880, 0.1, 0.09], [1175, 0.2, 0.16]] },
  lowTime: { wave: 'sine', gain: 0.25, notes: [[988, 0, 0.08], [988, 0.16, 0.08]] },
  end: { wave: 'triangle', gain: 0.2, notes: [[523, 0, 0.14], [659, 0.14, 0.14], [784, 0.28, 0.3]] },
};

export const SOUND_NAMES = Object.keys(SOUNDS);

let context = null;
const listeners = new Set();

export function soundOn() {
  return localStorage.getItem(KEY) !== 'off';
}

export function setSoundOn(on) {
  localStorage.setItem(KEY, on ? 'on' : 'off');
  for (const listener of [...listeners]) listener(on);
}

/** Calls `listener(on)` after every change of the switch; returns the unsubscribe. */
export function onSoundChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function audio() {
  if (context) return context;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  context = new Context();
  return context;
}

/** Plays a sound by name, unless the sound is off. */
export function playSound(name) {
  const sound = SOUNDS[name];
  if (!sound || !soundOn()) return;
  window.dispatchEvent(new CustomEvent('monte-sound', { detail: name }));
  const ctx = audio();
  if (!ctx) return;
  // A browser starts audio suspended until the page has been used.
  if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  const now = ctx.currentTime + 0.01;
  for (const [frequency, start, length] of sound.notes) {
    const oscillator = ctx.createOscillator();
    const volume = ctx.createGain();
    oscillator.type = sound.wave;
    oscillator.frequency.setValueAtTime(frequency, now + start);
    // A quick rise and a fall, so that no note clicks.
    volume.gain.setValueAtTime(0.0001, now + start);
    volume.gain.exponentialRampToValueAtTime(sound.gain, now + start + 0.01);
    volume.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    oscillator.connect(volume).connect(ctx.destination);
    oscillator.start(now + start);
    oscillator.stop(now + start + length + 0.02);
  }
}
