import type { ProjectListing } from "../../domain/projects/projects.service";
import { formatCents } from "../../common/money";
import type { EmailHistoryEntry } from "../../data/email-history.data";
import type { FieldDefinition, FormDefinition, RegistrationFormState, StoredAnswer } from "../../data/forms.data";
import type { RegistrationRef, TagRecord } from "../../data/registrations.data";
import { choiceOptionsOf } from "../../domain/forms/choice-matching";
import { isChoiceType } from "../../domain/forms/field-value-codec";
import type { CategoryRow, ProductRow } from "../../domain/products/product-reads";
import type { UserOutcome } from "../../domain/users/user-commands";
import type { ValueProblem } from "../../domain/forms/value-problems";
import { echoedValue } from "../../common/client-value";
import type { FieldProblemType } from "../types/payloads.type";
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from "../../data/webhooks.data";
import type { CartLineDetail, PaymentDetail, UtmDetail } from "../../domain/users/user-details";
import { encodeNodeId } from "../nodes/node-id";
import type { EmailOriginEnum, FieldTypeEnum, FormAudienceEnum, FormLevelEnum } from "../types/enums.type";
import type { FormFieldType, FormType, UserFormType } from "../types/form.type";
import type { ProductCategoryType, ProductType } from "../types/product.type";
import type { ProjectType } from "../types/project.type";
import {
  type CartLineType,
  type EmailRecordType,
  type FieldValueType,
  type PaymentType,
  type TagType,
  UserType,
  type UtmType,
} from "../types/user.type";
import type { WebhookDeliveryType, WebhookEndpointType } from "../types/webhook.type";

// The few mappings from domain shapes to GraphQL sources, in one place. Each source gets its
// Node id here, from the owner keys (the user's group_id and clogin_id, or the project's).

/** Whose data a user-owned object is: the registration's wire pair. */
export interface UserOwner {
  uid: number;
  groupId: number;
  cloginId: number;
}

/** A project as the domain lists it (a project record has the same members but `totals`). */
export function presentProjectListing(
  project: Omit<ProjectListing, "totals"> & { totals?: ProjectListing["totals"] },
): ProjectType {
  const totals = project.totals;
  return {
    id: encodeNodeId("Project", { groupId: project.id }),
    groupId: project.id,
    name: project.name,
    currency: project.currency,
    createdAt: project.createdAt,
    isArchived: project.archived,
    groupTotals: totals
      ? {
          totalUsers: totals.totalUsers,
          totalActiveUsers: totals.totalActiveUsers,
          totalOrder: formatCents(totals.totalOrderCents),
          totalPaid: formatCents(totals.totalPaidCents),
          totalBalance: formatCents(totals.totalBalanceCents),
        }
      : null,
  };
}

// Users are handed to GraphQL as UserType instances: type-graphql copies a plain root object into
// a new instance for every field resolver it calls, which costs CPU in every list of users.
export function userFromRef(ref: RegistrationRef): UserType {
  // Set on the instance (one per user of a page), not copied over from a literal made for it.
  const user = new UserType();
  user.uid = ref.uid;
  user.groupId = ref.groupId;
  user.cloginId = ref.cloginId;
  user.parentCloginId = ref.parentCloginId;
  return user;
}

/** The user of a users outcome; its fresh summary primes the request's loader (no second read). */
export function userFromOutcome(outcome: UserOutcome): UserType {
  return userFromRef({ ...outcome, parentCloginId: outcome.summary.parentCloginId });
}

// The Node ids and a field's choices are getters: a nested user read presents dozens of forms,
// fields and answers and selects few of those members (encoding an id and stripping the HTML of
// every option, built for every object, would be a measurable share of its CPU and garbage).

/** A field under its GraphQL member names; fields belong to one project. */
export function presentField(field: FieldDefinition, groupId: number): FormFieldType {
  return {
    get id() {
      return encodeNodeId("FormField", { groupId, identifier: field.id });
    },
    identifier: field.id,
    mappedName: field.name,
    label: field.label,
    type: field.fieldType as FieldTypeEnum,
    mandatory: field.mandatory,
    options: field.options,
    get choices() {
      return choiceOptionsOf(field.options);
    },
  };
}

export function presentForm(form: FormDefinition): FormType {
  return {
    get id() {
      return encodeNodeId("Form", { groupId: form.projectId, formId: form.id });
    },
    formId: form.id,
    groupId: form.projectId,
    name: form.name,
    mandatory: form.mandatory,
    audience: form.audience as FormAudienceEnum,
    level: form.level as FormLevelEnum,
  };
}

export function presentUserForm(state: RegistrationFormState, owner: UserOwner): UserFormType {
  return {
    get id() {
      return encodeNodeId("UserForm", { groupId: owner.groupId, cloginId: owner.cloginId, formId: state.form.id });
    },
    uid: owner.uid,
    groupId: owner.groupId,
    form: presentForm(state.form),
    completed: state.completed,
    completedAt: state.completedAt,
    submittedAt: state.submittedAt,
  };
}

export function presentFieldValue(answer: StoredAnswer, owner: UserOwner): FieldValueType {
  const choices = isChoiceType(answer.field.fieldType) ? [answer.answer].flat() : null;
  return {
    get id() {
      return encodeNodeId("FieldValue", {
        groupId: owner.groupId,
        cloginId: owner.cloginId,
        identifier: answer.field.id,
      });
    },
    field: presentField(answer.field, owner.groupId),
    text: choices ? null : String(answer.answer),
    choices,
    updatedAt: answer.updatedAt,
  };
}

export function presentEmailRecord(entry: EmailHistoryEntry, owner: UserOwner): EmailRecordType {
  return {
    id: encodeNodeId("EmailRecord", { groupId: owner.groupId, cloginId: owner.cloginId, emailId: entry.id }),
    emailId: entry.id,
    from: entry.from,
    to: entry.to,
    cc: entry.cc,
    bcc: entry.bcc,
    subject: entry.subject,
    body: entry.body,
    adminId: entry.adminId,
    recordedAt: entry.recordedAt,
    origin: entry.origin as EmailOriginEnum,
    deliveryStatus: entry.deliveryStatus ?? null,
    deliveryAttempts: entry.deliveryAttempts ?? null,
  };
}

export function presentCartLine(line: CartLineDetail, owner: UserOwner): CartLineType {
  return {
    id: encodeNodeId("CartLine", { groupId: owner.groupId, cloginId: owner.cloginId, cartLineId: line.cartLineId }),
    cartLineId: line.cartLineId,
    productId: line.productId,
    productName: line.productName,
    quantity: line.quantity,
    unitPrice: formatCents(line.unitPriceCents),
    amount: formatCents(line.unitPriceCents * line.quantity),
    remark: line.remark,
    recurringStartDate: line.recurringStartDate ? line.recurringStartDate.toISOString().slice(0, 10) : null,
    addedAt: line.addedAt,
  };
}

export function presentPayment(payment: PaymentDetail, owner: UserOwner): PaymentType {
  return {
    id: encodeNodeId("Payment", { groupId: owner.groupId, cloginId: owner.cloginId, paymentId: payment.paymentId }),
    paymentId: payment.paymentId,
    amount: formatCents(payment.amountCents),
    paidAt: payment.paidAt,
    method: payment.method,
    note: payment.note,
  };
}

/** Every member null when the registration has no attribution. */
export function presentUtm(utm: UtmDetail | null, owner: UserOwner): UtmType {
  return {
    id: encodeNodeId("Utm", { groupId: owner.groupId, cloginId: owner.cloginId }),
    utmId: utm?.id ?? null,
    campaign: utm?.campaign ?? null,
    content: utm?.content ?? null,
    medium: utm?.medium ?? null,
    source: utm?.source ?? null,
    term: utm?.term ?? null,
  };
}

export function presentTag(tag: TagRecord, groupId: number): TagType {
  return { id: encodeNodeId("Tag", { groupId, tagId: tag.id }), tagId: tag.id, name: tag.name };
}

/** The wire `product_type` of a stored level. */
const PRODUCT_TYPE_OF_LEVEL: Record<string, number> = { all: 0, parent: 1, child: 2 };

export function presentProduct(row: ProductRow, groupId: number): ProductType {
  return {
    id: encodeNodeId("Product", { groupId, pId: row.id }),
    productId: row.id,
    pId: row.id,
    name: row.name,
    price: formatCents(row.price_cents),
    baseProductType: row.base_type,
    productType: PRODUCT_TYPE_OF_LEVEL[row.level] ?? 0,
    categoryId: row.category_id,
    catId: row.category_id,
    startDate: row.available_from,
    endDate: row.available_until,
    onlyOne: row.only_one,
    lockOnceFundsAllocated: row.lock_once_funds_allocated,
    remarks: row.remarks,
    location: row.location,
    internalId: row.internal_id,
    misc1: row.misc1,
    misc2: row.misc2,
    parentProductId: row.parent_product_id,
    parentPId: row.parent_product_id,
  };
}

export function presentCategory(row: CategoryRow, groupId: number): ProductCategoryType {
  return {
    id: encodeNodeId("ProductCategory", { groupId, catId: row.id }),
    categoryId: row.id,
    catId: row.id,
    name: row.name,
    topRemark: row.top_remark,
    bottomRemark: row.bottom_remark,
    quotaOrdered: row.quota_ordered,
    interchange: row.interchange,
    mandatory: row.mandatory,
  };
}

/** An endpoint without its organization (the caller's own) and, as always, without its secret. */
export function presentWebhookEndpoint(endpoint: WebhookEndpointRecord): WebhookEndpointType {
  return {
    id: encodeNodeId("WebhookEndpoint", { endpointId: endpoint.id }),
    endpointId: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    groupIds: endpoint.groupIds,
    active: endpoint.active,
    disabledReason: endpoint.disabledReason,
    createdAt: endpoint.createdAt,
  };
}

export function presentWebhookDelivery(delivery: WebhookDeliveryRecord): WebhookDeliveryType {
  return {
    id: encodeNodeId("WebhookDelivery", { endpointId: delivery.endpointId, deliveryId: delivery.id }),
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    state: delivery.state,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: delivery.nextAttemptAt,
    deliveredAt: delivery.deliveredAt,
    attempts: delivery.attempts,
  };
}

/** The values not written, keyed as sent, with the value bounded as every echo of input is. */
export function presentProblems(problems: readonly ValueProblem[]): FieldProblemType[] {
  return problems.map((problem) => ({
    field: problem.key,
    value: echoedValue(problem.value),
    reason: problem.reason,
    message: problem.message,
  }));
}
