// What a registration owes and has paid, as SQL: the amount of a cart line is its quantity times
// its unit price, and every sum of orders and payments is built from these two fragments.

/** The amount of one cart line row (`alias` names cart_line). */
export const cartLineAmountSql = (alias: string): string => `${alias}.quantity * ${alias}.unit_price_cents`;

/** The amount of one payment row (`alias` names payment). */
export const paymentAmountSql = (alias: string): string => `${alias}.amount_cents`;
