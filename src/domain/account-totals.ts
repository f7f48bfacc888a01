// Orders and payments, in cents: a cart line costs its quantity times its unit price, and the
// balance is what was ordered minus what was paid. Users' and projects' totals both come from here.

export interface AccountTotals {
  totalOrderCents: number;
  totalPaidCents: number;
  /** Ordered minus paid; negative when more was paid than ordered. */
  totalBalanceCents: number;
}

export const accountTotals = (orderCents: number, paidCents: number): AccountTotals => ({
  totalOrderCents: orderCents,
  totalPaidCents: paidCents,
  totalBalanceCents: orderCents - paidCents,
});

/** The amount of one cart line (the SQL sums use the same product, see src/data/account-sums.ts). */
export const lineAmountCents = (quantity: number, unitPriceCents: number): number => quantity * unitPriceCents;
