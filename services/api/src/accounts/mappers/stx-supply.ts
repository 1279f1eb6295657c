/** Micro-STX in one STX. */
const MICRO = 1_000_000n;

/** The reference API's projected supply in 2050: 2,318,000,000 STX, in micro-STX. */
const TOTAL_MICRO_STX_YEAR_2050 = 2_318_000_000n * MICRO;

/** Micro-STX as STX with six decimals (`1234.500000`), exactly, from BigInt. */
export function microStxToStx(micro: bigint): string {
  const sign = micro < 0n ? '-' : '';
  const abs = micro < 0n ? -micro : micro;
  return `${sign}${abs / MICRO}.${(abs % MICRO).toString().padStart(6, '0')}`;
}

/** `microStxToStx` with thousands separators in the whole part (`1,234.500000`), as the legacy format shows it. */
function formatted(stx: string): string {
  const [whole, fraction] = stx.split('.') as [string, string];
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign ? whole.slice(1) : whole;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction}`;
}

/**
 * The share unlocked, two decimals. Every STX this supply counts is liquid (the reference reads the same sum for both),
 * so it is `100.00` once anything exists; `0.00` before (the reference divides 0 by 0 there).
 */
function unlockedPercent(supply: bigint): string {
  return supply > 0n ? '100.00' : '0.00';
}

interface StxSupplyResponse {
  unlocked_percent: string;
  total_stx: string;
  total_stx_year_2050: string;
  unlocked_stx: string;
  block_height: number;
}

export function toStxSupplyResponse(supply: bigint, height: number): StxSupplyResponse {
  const total = microStxToStx(supply);
  return {
    unlocked_percent: unlockedPercent(supply),
    total_stx: total,
    total_stx_year_2050: microStxToStx(TOTAL_MICRO_STX_YEAR_2050),
    unlocked_stx: total,
    block_height: height,
  };
}

interface StxSupplyLegacyResponse {
  unlockedPercent: string;
  totalStacks: string;
  totalStacksFormatted: string;
  totalStacksYear2050: string;
  totalStacksYear2050Formatted: string;
  unlockedSupply: string;
  unlockedSupplyFormatted: string;
  blockHeight: string;
}

export function toStxSupplyLegacyResponse(supply: bigint, height: number): StxSupplyLegacyResponse {
  const v1 = toStxSupplyResponse(supply, height);
  return {
    unlockedPercent: v1.unlocked_percent,
    totalStacks: v1.total_stx,
    totalStacksFormatted: formatted(v1.total_stx),
    totalStacksYear2050: v1.total_stx_year_2050,
    totalStacksYear2050Formatted: formatted(v1.total_stx_year_2050),
    unlockedSupply: v1.unlocked_stx,
    unlockedSupplyFormatted: formatted(v1.unlocked_stx),
    blockHeight: String(height),
  };
}

/** `/extended/v3/tokens/stx/supply`: micro-STX integer strings. */
export function toStxSupplyV3Response(supply: bigint): { total: string; projected_total_2050: string } {
  return { total: supply.toString(), projected_total_2050: TOTAL_MICRO_STX_YEAR_2050.toString() };
}
