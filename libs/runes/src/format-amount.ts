import { MAX_DIVISIBILITY } from './runestone';

/**
 * A base-unit amount as a decimal string with exactly `divisibility` fraction digits
 * (`formatRuneAmount(12345n, 2)` → `"123.45"`, `formatRuneAmount(5n, 3)` → `"0.005"`);
 * divisibility 0 gives the integer.
 */
export function formatRuneAmount(amount: bigint, divisibility: number): string {
  if (amount < 0n) throw new RangeError(`negative rune amount: ${amount}`);
  if (!Number.isInteger(divisibility) || divisibility < 0 || divisibility > MAX_DIVISIBILITY) {
    throw new RangeError(`invalid divisibility: ${divisibility}`);
  }
  if (divisibility === 0) return amount.toString();
  const digits = amount.toString().padStart(divisibility + 1, '0');
  const split = digits.length - divisibility;
  return `${digits.slice(0, split)}.${digits.slice(split)}`;
}
