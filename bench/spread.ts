/** The median of a bench's runs with their spread (smallest and largest), the way every bench figure is reported. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function spread(xs: number[]): Spread {
  const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (s.length === 0) return { median: NaN, min: NaN, max: NaN, runs: 0 };
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s.at(-1)!, runs: s.length };
}

/** `148.6 (140.1–152.0)`: the median, then the smallest and largest run; a single run alone. */
export function formatSpread(xs: number[], digits: number, unit = ''): string {
  const { median, min, max, runs } = spread(xs);
  if (runs === 0) return '-';
  const f = (x: number) => `${x.toFixed(digits)}${unit}`;
  return runs === 1 ? f(median) : `${f(median)} (${f(min)}–${f(max)})`;
}

/**
 * A bench whose work was not all done (a dead letter, a wrong tip, error answers under load): its figures measure
 * something else, so the bench prints why and exits non-zero instead of printing them as valid.
 */
export class BenchInvalidError extends Error {
  constructor(message: string) {
    super(`BENCH INVALID: ${message}`);
    this.name = 'BenchInvalidError';
  }
}
