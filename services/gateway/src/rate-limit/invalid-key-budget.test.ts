import { describe, expect, it } from '@jest/globals';
import { InvalidKeyBudget } from './invalid-key-budget';

describe('InvalidKeyBudget', () => {
  it('counts invalid keys per address in one-minute windows', () => {
    let now = 1_000_000;
    const budget = new InvalidKeyBudget(3, () => now);
    expect(budget.suspect('a')).toBe(false);
    budget.record('a');
    expect(budget.suspect('a')).toBe(true);
    expect(budget.exhausted('a')).toBe(false);
    expect(budget.suspect('b')).toBe(false);
    budget.record('a');
    budget.record('a');
    expect(budget.exhausted('a')).toBe(true);
    expect(budget.count('a')).toBe(3);
    now += 20_000;
    expect(budget.retryAfterSeconds('a')).toBe(40);
    expect(budget.exhausted('a')).toBe(true);
    // The window ends 60 s after its first invalid key: the address starts over.
    now += 40_000;
    expect(budget.exhausted('a')).toBe(false);
    expect(budget.suspect('a')).toBe(false);
    budget.record('a');
    expect(budget.count('a')).toBe(1);
  });

  it('keeps at most maxAddresses windows, dropping the oldest', () => {
    const now = 5_000;
    const budget = new InvalidKeyBudget(10, () => now, 2);
    budget.record('a');
    budget.record('b');
    budget.record('c');
    expect(budget.suspect('a')).toBe(false);
    expect(budget.suspect('b')).toBe(true);
    expect(budget.suspect('c')).toBe(true);
  });
});
