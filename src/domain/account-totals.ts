// Orders and payments, in cents: a cart line costs its quantity times its unit price, and the
// balance is what was ordered minus what was paid (discount lines subtract). Users' and projects' totals both come from here.

export interface AccountTotals {
  totalOrderCents: number;
  totalPaidCents: number;
  /** Ordered minus paid; negative when more was paid than ordered. */
  totalBalanceCents: number;
}

/**
 * Totals of an account from its summed cart lines and payments. Discount lines carry a negative
 * unit price, so the sum can fall below zero; an order never does (contract §13).
 */
export function accountTotals(summedLinesCents: number, paidCents: number): AccountTotals {
  const orderCents = Math.max(0, summedLinesCents);
  return { totalOrderCents: orderCents, totalPaidCents: paidCents, totalBalanceCents: orderCents - paidCents };
}

/** The amount of one cart line (the SQL sums use the same product, see src/data/account-sums.ts). */
export const lineAmountCents = (quantity: number, unitPriceCents: number): number => quantity * unitPriceCents;
