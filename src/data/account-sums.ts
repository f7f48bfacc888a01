// What a registration owes and has paid, as SQL: the amount of a cart line is its quantity times
// its unit price, and every sum of orders and payments is built from these two fragments.

/** The amount of one cart line row (`alias` names cart_line). */
export const cartLineAmountSql = (alias: string): string => `${alias}.quantity * ${alias}.unit_price_cents`;

/** The amount of one payment row (`alias` names payment). */
export const paymentAmountSql = (alias: string): string => `${alias}.amount_cents`;

// The same rules in cents, for the sums once read: a balance is what was ordered minus what was
// paid (discount lines subtract).

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

/** The amount of one cart line (the SQL sums use the same product: cartLineAmountSql). */
export const lineAmountCents = (quantity: number, unitPriceCents: number): number => quantity * unitPriceCents;
