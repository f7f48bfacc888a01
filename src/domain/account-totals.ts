// Orders and payments, in cents: users' and projects' totals both come from here. The rules live
// next to the SQL sums they complete (src/data/account-sums.ts), so the user projection decodes
// with them too.
export { accountTotals, lineAmountCents, type AccountTotals } from "../data/account-sums";
