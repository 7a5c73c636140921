// The error function, for turning a z-score into a two-sided normal probability: erf(|z| / sqrt(2)).
// Abramowitz and Stegun 7.1.26: absolute error below 1.5e-7, well under the 4 decimals scores keep, and
// a fixed sequence of float operations, so the same input gives the same output on every platform.

const P = 0.3275911;
const A1 = 0.254829592;
const A2 = -0.284496736;
const A3 = 1.421413741;
const A4 = -1.453152027;
const A5 = 1.061405429;

export function erf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return -1;
  const sign = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + P * a);
  const y = 1 - ((((A5 * t + A4) * t + A3) * t + A2) * t + A1) * t * Math.exp(-a * a);
  return sign * y;
}

/** How unusual a z-score is, in [0, 1): the probability mass of a normal closer to the mean than `z`. */
export function twoSided(z: number): number {
  return Math.min(1, Math.max(0, erf(Math.abs(z) / Math.SQRT2)));
}
