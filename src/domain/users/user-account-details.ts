import type { EntityManager } from "typeorm";
import { readCartLines, readPayments, readUtm } from "../../data/user-details.data";
import { groupBy } from "../../common/group-by";

// A registration's cart lines, payments and UTM data, for many registrations at once: get_info's
// `_usercart`, `_userpayments` and `_utm`, and the GraphQL User fields cartLines, payments, utm.

export interface CartLineDetail {
  cartLineId: number;
  productId: number;
  productName: string;
  quantity: number;
  unitPriceCents: number;
  remark: string | null;
  recurringStartDate: Date | null;
  addedAt: Date;
}

export interface PaymentDetail {
  paymentId: number;
  amountCents: number;
  paidAt: Date;
  method: string | null;
  note: string | null;
}

export interface UtmDetail {
  campaign: string | null;
  content: string | null;
  id: string | null;
  medium: string | null;
  source: string | null;
  term: string | null;
}

// Batch reads for the GraphQL User fields (cartLines, payments, utm), one statement per batch.

export async function readCartOf(em: EntityManager, uids: readonly number[]): Promise<Map<number, CartLineDetail[]>> {
  const rows = await readCartLines(em, uids);
  return new Map(
    [...groupBy(rows, (row) => row.registration_id)].map(([uid, lines]) => [
      uid,
      lines.map((row): CartLineDetail => ({
        cartLineId: row.id,
        productId: row.product_id,
        productName: row.product_name,
        quantity: row.quantity,
        unitPriceCents: row.unit_price_cents,
        remark: row.remark,
        recurringStartDate: row.recurring_start_date,
        addedAt: row.created_at,
      })),
    ]),
  );
}

export async function readPaymentsOf(
  em: EntityManager,
  uids: readonly number[],
): Promise<Map<number, PaymentDetail[]>> {
  const rows = await readPayments(em, uids);
  return new Map(
    [...groupBy(rows, (row) => row.registration_id)].map(([uid, payments]) => [
      uid,
      payments.map((row) => ({
        paymentId: row.id,
        amountCents: row.amount_cents,
        paidAt: row.paid_at,
        method: row.method,
        note: row.note,
      })),
    ]),
  );
}

/** get_info's `_utm` of a registration without UTM data: every member present, null. */
export const NO_UTM: UtmDetail = Object.freeze({
  campaign: null,
  content: null,
  id: null,
  medium: null,
  source: null,
  term: null,
});

export async function readUtmOf(em: EntityManager, uids: readonly number[]): Promise<Map<number, UtmDetail>> {
  const rows = await readUtm(em, uids);
  return new Map(
    rows.map((row) => [
      row.uid,
      {
        campaign: row.utm_campaign,
        content: row.utm_content,
        id: row.utm_id,
        medium: row.utm_medium,
        source: row.utm_source,
        term: row.utm_term,
      },
    ]),
  );
}
