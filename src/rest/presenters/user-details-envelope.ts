import type { UserDetails } from "../../domain/users/user-details";
import { isChoiceType } from "../../domain/forms/field-value-codec";
import { PRODUCT_LEVELS } from "../../entities";
import { formatUtcDateTime } from "../../common/dates";
import { formatCents } from "../../common/money";
import { presentMetaInfo, presentUserInfo } from "./user-envelope";

// The `doc` of a get_info answer (contract §11), also nested per record in get_user_list: one
// member per requested key, under the key as sent; ids and numbers as strings, money with two
// decimals, dates `YYYY-MM-DD HH:MM:SS` UTC.

const flag = (value: boolean) => (value ? "1" : "0");
const dateOrNull = (value: Date | null) => (value ? formatUtcDateTime(value) : null);

export function presentDetailsDoc(details: UserDetails, keysAsSent: readonly string[]): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const key of keysAsSent) {
    if (details.fieldValues.has(key)) {
      doc[key] = details.fieldValues.get(key) ?? null;
      continue;
    }
    switch (key) {
      case "_allfields":
        if (details.allFields) {
          doc[key] = {
            fields: Object.fromEntries(details.allFields.values),
            field_index: details.allFields.index.map((field) => ({
              field_id: field.identifier,
              name: field.mappedName,
              label: field.label,
              type: field.type,
              form_id: String(field.formId),
              mandatory: flag(field.mandatory),
              ...(isChoiceType(field.type) ? { options: field.options } : {}),
            })),
            errors: details.allFields.errors.map((field) => ({
              form_id: String(field.formId),
              field_id: field.identifier,
              label: field.label,
              message: `${field.label} is required.`,
            })),
          };
        }
        break;
      case "_userforms":
        if (details.forms) {
          doc[key] = details.forms.map((form) => ({
            form_id: String(form.formId),
            form_name: form.name,
            mandatory: flag(form.mandatory),
            audience: form.audience,
            completed: flag(form.completed),
            completed_at: dateOrNull(form.completedAt),
          }));
        }
        break;
      case "_family":
        if (details.family) {
          const record = (summary: NonNullable<UserDetails["family"]>["parent"]) => ({
            user_info: presentUserInfo(summary),
            meta_info: presentMetaInfo(summary),
          });
          doc[key] = { parent: record(details.family.parent), children: details.family.children.map(record) };
        }
        break;
      case "_userproducts":
        if (details.products) {
          doc[key] = details.products.map((product) => ({
            p_id: String(product.productId),
            product_name: product.name,
            product_price: formatCents(product.priceCents),
            base_product_type: String(product.baseType),
            product_type: String(Math.max(0, PRODUCT_LEVELS.indexOf(product.level as (typeof PRODUCT_LEVELS)[number]))),
            cat_id: product.categoryId === null ? null : String(product.categoryId),
            only_one: flag(product.onlyOne),
            ...(product.cartLineId !== null ? { cart_id: String(product.cartLineId) } : {}),
          }));
        }
        break;
      case "_usercart":
        if (details.cart) {
          doc[key] = details.cart.map((line) => ({
            cart_id: String(line.cartLineId),
            p_id: String(line.productId),
            product_name: line.productName,
            quantity: String(line.quantity),
            unit_price: formatCents(line.unitPriceCents),
            amount: formatCents(line.unitPriceCents * line.quantity),
            product_remark: line.remark,
            recurring_start_date: line.recurringStartDate
              ? formatUtcDateTime(line.recurringStartDate).slice(0, 10)
              : null,
            added_at: formatUtcDateTime(line.addedAt),
          }));
        }
        break;
      case "_userpayments":
        if (details.payments) {
          doc[key] = details.payments.map((payment) => ({
            payment_id: String(payment.paymentId),
            amount: formatCents(payment.amountCents),
            paid_at: formatUtcDateTime(payment.paidAt),
            method: payment.method,
            note: payment.note,
          }));
        }
        break;
      case "_utm":
        if (details.utm) doc[key] = { ...details.utm };
        break;
      case "_useremails":
        if (details.emails) {
          doc[key] = details.emails.map((email) => ({
            email_id: String(email.id),
            from: email.from,
            to: email.to,
            cc: email.cc,
            bcc: email.bcc,
            subject: email.subject,
            body: email.body,
            admin_id: email.adminId === null ? null : String(email.adminId),
            recorded_at: formatUtcDateTime(email.recordedAt),
            origin: email.origin,
            delivery_status: email.deliveryStatus ?? null,
            delivery_attempts:
              email.deliveryAttempts === null || email.deliveryAttempts === undefined
                ? null
                : String(email.deliveryAttempts),
          }));
        }
        break;
    }
  }
  return doc;
}
